import axios from 'axios';
import {
  anyString,
  authorizationPath as path,
  capturesOf,
  createAuthorization,
  firstIssue,
  requestToken,
  startHarness,
  usd,
  withHarness,
  type SandboxHarness,
} from '../helpers/sandbox-fixtures';

describe('payments sandbox: authentication', () => {
  let harness: SandboxHarness;
  beforeAll(async () => {
    harness = await startHarness({
      clientId: 'merchant',
      clientSecret: 's3cret',
      staticTokens: ['static-token'],
    });
  });
  afterAll(() => harness.close());

  it('issues a bearer token for the right client credentials and refuses wrong ones', async () => {
    const granted = await requestToken(harness.sandbox.url, 'merchant', 's3cret');
    expect(granted.status).toBe(200);
    expect(granted.data).toMatchObject({ token_type: 'Bearer', expires_in: 32_400 });
    expect(granted.data).toEqual(
      expect.objectContaining({
        access_token: anyString,
        scope: anyString,
        app_id: anyString,
      }),
    );

    const refused = await requestToken(harness.sandbox.url, 'merchant', 'wrong');
    expect(refused.status).toBe(401);
    expect(refused.data).toMatchObject({ error: 'invalid_client' });
  });

  it('refuses a grant type other than client_credentials', async () => {
    const response = await axios.post(`${harness.sandbox.url}/v1/oauth2/token`, 'grant_type=password', {
      auth: { username: 'merchant', password: 's3cret' },
      validateStatus: () => true,
    });
    expect(response.status).toBe(400);
    expect(response.data).toMatchObject({ error: 'unsupported_grant_type' });
  });

  it('answers 401 invalid_token without a token, with an unknown one, and after revocation', async () => {
    const { id } = await createAuthorization(harness);
    const missing = await harness.anonymous.get(path(id));
    expect(missing.status).toBe(401);
    expect(missing.data).toMatchObject({ error: 'invalid_token', error_description: anyString });

    const unknown = await harness.anonymous.get(path(id), { headers: { authorization: 'Bearer nope' } });
    expect(unknown.status).toBe(401);

    expect((await harness.api.get(path(id))).status).toBe(200);
    expect(
      (await harness.anonymous.get(path(id), { headers: { authorization: 'Bearer static-token' } })).status,
    ).toBe(200);

    expect((await harness.anonymous.delete('/sandbox/tokens')).status).toBe(204);
    expect((await harness.api.get(path(id))).status).toBe(401);
    expect(
      (await harness.anonymous.get(path(id), { headers: { authorization: 'Bearer static-token' } })).status,
    ).toBe(200);
  });

  it('lets a token lapse after expires_in', async () => {
    let now = new Date('2026-03-01T10:00:00Z');
    await withHarness({ now: () => now, tokenTtlSeconds: 60 }, async (timed) => {
      const { id } = await createAuthorization(timed);
      expect((await timed.api.get(path(id))).status).toBe(200);
      now = new Date(now.getTime() + 61_000);
      expect((await timed.api.get(path(id))).status).toBe(401);
    });
  });
});

describe('payments sandbox: authorization state machine', () => {
  let harness: SandboxHarness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(() => harness.close());

  it('reads an authorization in PayPal shape, and 404s an unknown id', async () => {
    const created = await createAuthorization(harness, {
      invoice_id: 'INV-1',
      custom_id: 'C-1',
      order_id: 'ORDER-1',
    });
    const response = await harness.api.get(path(created.id));
    expect(response.status).toBe(200);
    expect(response.data).toMatchObject({
      id: created.id,
      status: 'CREATED',
      amount: usd('100.00'),
      invoice_id: 'INV-1',
      custom_id: 'C-1',
      supplementary_data: { related_ids: { order_id: 'ORDER-1' } },
    });
    const data = response.data as { links: Array<{ rel: string; href: string }>; expiration_time: string };
    expect(data.links.map((link) => link.rel)).toEqual(['self', 'capture', 'void', 'reauthorize']);
    expect(data.links[0]?.href).toBe(`${harness.sandbox.url}${path(created.id)}`);
    expect(Date.parse(data.expiration_time)).toBeGreaterThan(Date.now() + 28 * 86_400_000);

    const missing = await harness.api.get(path('NOPE'));
    expect(missing.status).toBe(404);
    expect(missing.data).toMatchObject({
      name: 'RESOURCE_NOT_FOUND',
      details: [{ issue: 'INVALID_RESOURCE_ID' }],
    });
    expect(missing.data).toHaveProperty('debug_id');
  });

  it('captures partially, then finally, and the authorization follows', async () => {
    const { id } = await createAuthorization(harness);
    const first = await harness.api.post(path(id, 'capture'), { amount: usd('30.10'), final_capture: false });
    expect(first.status).toBe(201);
    expect(first.data).toMatchObject({
      status: 'COMPLETED',
      amount: usd('30.10'),
      final_capture: false,
      supplementary_data: { related_ids: { authorization_id: id } },
    });
    const links = (first.data as { links: Array<{ rel: string; href: string }> }).links;
    expect(links.find((link) => link.rel === 'up')?.href).toBe(`${harness.sandbox.url}${path(id)}`);
    expect((await harness.api.get(path(id))).data).toMatchObject({ status: 'PARTIALLY_CAPTURED' });

    const second = await harness.api.post(path(id, 'capture'), { amount: usd('20.00'), final_capture: true });
    expect(second.status).toBe(201);
    expect((await harness.api.get(path(id))).data).toMatchObject({ status: 'CAPTURED' });

    const again = await harness.api.post(path(id, 'capture'), { amount: usd('1.00') });
    expect(again.status).toBe(422);
    expect(again.data).toMatchObject({ name: 'UNPROCESSABLE_ENTITY', debug_id: anyString });
    expect(firstIssue(again.data)).toBe('AUTHORIZATION_ALREADY_CAPTURED');

    expect(await capturesOf(harness, id)).toHaveLength(2);
  });

  it('captures the remainder as final when no amount is given, in exact minor units', async () => {
    const { id } = await createAuthorization(harness, { amount: usd('0.30') });
    await harness.api.post(path(id, 'capture'), { amount: usd('0.1') });
    await harness.api.post(path(id, 'capture'), { amount: usd('0.10') });
    const rest = await harness.api.post(path(id, 'capture'), {});
    expect(rest.data).toMatchObject({ amount: usd('0.10'), final_capture: true });
    expect((await harness.api.get(path(id))).data).toMatchObject({ status: 'CAPTURED' });
  });

  it('captures up to 115% of the authorization in all, as PayPal does, and refuses more', async () => {
    const { id } = await createAuthorization(harness, { amount: usd('10.00') });
    await harness.api.post(path(id, 'capture'), { amount: usd('6.00') });
    const over = await harness.api.post(path(id, 'capture'), { amount: usd('5.51') });
    expect(over.status).toBe(422);
    expect(firstIssue(over.data)).toBe('MAX_CAPTURE_AMOUNT_EXCEEDED');
    expect((await harness.api.post(path(id, 'capture'), { amount: usd('5.50') })).status).toBe(201);
    expect((await harness.api.get(path(id))).data).toMatchObject({ status: 'CAPTURED' });
    expect(await capturesOf(harness, id)).toHaveLength(2);
  });

  it('captures at most 75.00 USD more than a USD authorization, whatever 115 % of it is', async () => {
    const { id } = await createAuthorization(harness, { amount: usd('1000.00') });
    const over = await harness.api.post(path(id, 'capture'), { amount: usd('1075.01') });
    expect(firstIssue(over.data)).toBe('MAX_CAPTURE_AMOUNT_EXCEEDED');
    expect((await harness.api.post(path(id, 'capture'), { amount: usd('1075.00') })).status).toBe(201);
  });

  it("moves the authorization's end where a test says; past, it has expired", async () => {
    const { id } = await createAuthorization(harness, {});
    const at = '2030-01-02T03:04:05Z';
    const moved = await harness.api.post(`/sandbox/authorizations/${id}/expiration`, { expiration_time: at });
    expect(moved.data).toMatchObject({ expiration_time: at });
    const refused = await harness.api.post(`/sandbox/authorizations/${id}/expiration`, {
      expiration_time: 'soon',
    });
    expect(refused.status).toBe(400);
    await harness.api.post(`/sandbox/authorizations/${id}/expiration`, {
      expiration_time: '2020-01-01T00:00:00Z',
    });
    expect((await harness.api.get(path(id))).data).toMatchObject({ status: 'EXPIRED' });
    const unknown = await harness.api.post('/sandbox/authorizations/UNKNOWN/expiration', {
      expiration_time: at,
    });
    expect(unknown.status).toBe(404);
  });

  it("moves an original's end and its reauthorization's together: the validity is the first one's", async () => {
    const { id } = await createAuthorization(harness, {});
    const renewed = await harness.api.post(path(id, 'reauthorize'), { amount: usd('50.00') });
    const at = '2031-05-06T07:08:09Z';
    await harness.api.post(`/sandbox/authorizations/${id}/expiration`, { expiration_time: at });
    expect((await harness.api.get(path(renewed.data.id))).data).toMatchObject({ expiration_time: at });
  });

  it('refuses to capture an authorization whose payment has intent CAPTURE (spec 3, rule 1)', async () => {
    const { id } = await createAuthorization(harness, { intent: 'CAPTURE' });
    const response = await harness.api.post(path(id, 'capture'), {});
    expect(response.status).toBe(422);
    expect(firstIssue(response.data)).toBe('ACTION_DOES_NOT_MATCH_INTENT');
    expect(await capturesOf(harness, id)).toHaveLength(0);
  });

  it('refuses money it cannot take: other currency, too many decimals, zero, unsupported currency', async () => {
    const { id } = await createAuthorization(harness);
    const cases: Array<[unknown, string]> = [
      [{ currency_code: 'EUR', value: '1.00' }, 'AUTH_CAPTURE_CURRENCY_MISMATCH'],
      [usd('1.001'), 'DECIMAL_PRECISION'],
      [usd('0.00'), 'CANNOT_BE_ZERO_OR_NEGATIVE'],
      [{ currency_code: 'XXX', value: '1.00' }, 'INVALID_CURRENCY_CODE'],
    ];
    for (const [amount, issue] of cases) {
      const response = await harness.api.post(path(id, 'capture'), { amount });
      expect([response.status, firstIssue(response.data)]).toEqual([422, issue]);
    }
    expect((await harness.api.get(path(id))).data).toMatchObject({ status: 'CREATED' });
  });

  it('answers 400 INVALID_REQUEST naming the field for a malformed body', async () => {
    const { id } = await createAuthorization(harness);
    const response = await harness.api.post(path(id, 'capture'), {
      amount: { currency_code: 'USD', value: 12 },
    });
    expect(response.status).toBe(400);
    expect(response.data).toMatchObject({
      name: 'INVALID_REQUEST',
      debug_id: anyString,
      details: [{ field: '/amount/value', location: 'body', issue: 'INVALID_PARAMETER_SYNTAX' }],
    });
    const missing = await harness.api.post(path(id, 'capture'), { amount: { value: '1.00' } });
    expect(missing.data).toMatchObject({
      details: [{ field: '/amount/currency_code', issue: 'MISSING_REQUIRED_PARAMETER' }],
    });

    const notJson = await harness.api.post(path(id, 'capture'), '{"amount":', {
      headers: { 'content-type': 'application/json' },
      transformRequest: [(data: string) => data],
    });
    expect(notJson.status).toBe(400);
    expect(firstIssue(notJson.data)).toBe('MALFORMED_REQUEST_JSON');
  });

  it('voids an open authorization once, with a body or, when asked, 204', async () => {
    const { id } = await createAuthorization(harness);
    const voided = await harness.api.post(path(id, 'void'));
    expect(voided.status).toBe(200);
    expect(voided.data).toMatchObject({ id, status: 'VOIDED' });

    const twice = await harness.api.post(path(id, 'void'));
    expect([twice.status, firstIssue(twice.data)]).toEqual([422, 'PREVIOUSLY_VOIDED']);
    const capture = await harness.api.post(path(id, 'capture'), {});
    expect(firstIssue(capture.data)).toBe('AUTHORIZATION_VOIDED');

    const other = await createAuthorization(harness);
    const minimal = await harness.api.post(path(other.id, 'void'), undefined, {
      headers: { prefer: 'return=minimal', 'content-type': 'application/json' },
    });
    expect(minimal.status).toBe(204);
    expect(minimal.data).toBe('');
  });

  it('voids what is left of a partially captured authorization, but not a fully captured one', async () => {
    const partial = await createAuthorization(harness);
    await harness.api.post(path(partial.id, 'capture'), { amount: usd('10.00') });
    expect((await harness.api.post(path(partial.id, 'void'))).data).toMatchObject({ status: 'VOIDED' });

    const full = await createAuthorization(harness);
    await harness.api.post(path(full.id, 'capture'), {});
    const refused = await harness.api.post(path(full.id, 'void'));
    expect([refused.status, firstIssue(refused.data)]).toEqual([422, 'PREVIOUSLY_CAPTURED']);
  });

  it('reauthorizes into a new authorization that takes further captures (spec body and PayPal body)', async () => {
    const original = await createAuthorization(harness);
    await harness.api.post(path(original.id, 'capture'), { amount: usd('40.00') });

    const response = await harness.api.post(path(original.id, 'reauthorize'), {
      amount: { currency: 'USD', total: '50.00' },
    });
    expect(response.status).toBe(201);
    const reauthorization = response.data as {
      id: string;
      status: string;
      amount: unknown;
      expiration_time: string;
    };
    expect(reauthorization.id).not.toBe(original.id);
    expect(reauthorization).toMatchObject({ status: 'CREATED', amount: usd('50.00') });
    const originalNow = (await harness.api.get(path(original.id))).data as {
      status: string;
      expiration_time: string;
    };
    expect(originalNow.status).toBe('PARTIALLY_CAPTURED');
    expect(reauthorization.expiration_time).toBe(originalNow.expiration_time);

    const onOriginal = await harness.api.post(path(original.id, 'capture'), { amount: usd('1.00') });
    expect(firstIssue(onOriginal.data)).toBe('AUTHORIZATION_REAUTHORIZED');
    expect(
      (await harness.api.post(path(reauthorization.id, 'capture'), { amount: usd('50.00') })).status,
    ).toBe(201);
    expect((await harness.api.get(path(reauthorization.id))).data).toMatchObject({ status: 'CAPTURED' });

    const paypalForm = await createAuthorization(harness, {
      amount: { currency_code: 'JPY', value: '1500' },
    });
    const renewed = await harness.api.post(path(paypalForm.id, 'reauthorize'), {
      amount: { currency_code: 'JPY', value: '1000' },
    });
    expect(renewed.data).toMatchObject({ amount: { currency_code: 'JPY', value: '1000' } });
  });

  it('reauthorizes only once, only an original, within what is left, in its currency', async () => {
    const original = await createAuthorization(harness, { amount: usd('20.00') });
    const tooMuch = await harness.api.post(path(original.id, 'reauthorize'), {
      amount: { currency: 'USD', total: '20.01' },
    });
    expect(firstIssue(tooMuch.data)).toBe('REAUTHORIZATION_AMOUNT_EXCEEDED');
    const currency = await harness.api.post(path(original.id, 'reauthorize'), {
      amount: { currency: 'EUR', total: '1.00' },
    });
    expect(firstIssue(currency.data)).toBe('AUTH_CURRENCY_MISMATCH');

    const renewed = await harness.api.post(path(original.id, 'reauthorize'), {});
    expect(renewed.data).toMatchObject({ amount: usd('20.00') });
    const renewedId = (renewed.data as { id: string }).id;
    expect(firstIssue((await harness.api.post(path(original.id, 'reauthorize'), {})).data)).toBe(
      'REAUTHORIZATION_NOT_SUPPORTED',
    );
    expect(firstIssue((await harness.api.post(path(renewedId, 'reauthorize'), {})).data)).toBe(
      'REAUTHORIZATION_NOT_SUPPORTED',
    );

    // PayPal: a reauthorization is voided through its original, which voids both.
    expect(firstIssue((await harness.api.post(path(renewedId, 'void'))).data)).toBe('CANNOT_BE_VOIDED');
    expect((await harness.api.post(path(original.id, 'void'))).status).toBe(200);
    expect((await harness.api.get(path(renewedId))).data).toMatchObject({ status: 'VOIDED' });
  });

  it('expires through the control API and refuses to capture or void afterwards', async () => {
    const { id } = await createAuthorization(harness);
    const expired = await harness.anonymous.post(`/sandbox/authorizations/${id}/expire`);
    expect(expired.data).toMatchObject({ id, status: 'EXPIRED' });
    expect((await harness.api.get(path(id))).data).toMatchObject({ status: 'EXPIRED' });
    expect(firstIssue((await harness.api.post(path(id, 'capture'), {})).data)).toBe('AUTHORIZATION_EXPIRED');
    expect(firstIssue((await harness.api.post(path(id, 'void'))).data)).toBe('AUTHORIZATION_EXPIRED');
    expect(firstIssue((await harness.api.post(path(id, 'reauthorize'), {})).data)).toBe(
      'AUTHORIZATION_EXPIRED',
    );
  });
});

describe('payments sandbox: expiry by the clock', () => {
  it('expires an authorization once its validity days have passed', async () => {
    let now = new Date('2026-03-01T10:00:00Z');
    const options = { now: () => now, authorizationValidityDays: 3, tokenTtlSeconds: 30 * 86_400 };
    await withHarness(options, async (harness) => {
      const { id } = await createAuthorization(harness);
      expect((await harness.api.get(path(id))).data).toMatchObject({
        expiration_time: '2026-03-04T10:00:00Z',
      });
      now = new Date('2026-03-04T09:59:59Z');
      expect((await harness.api.get(path(id))).data).toMatchObject({ status: 'CREATED' });
      now = new Date('2026-03-04T10:00:00Z');
      expect((await harness.api.get(path(id))).data).toMatchObject({ status: 'EXPIRED' });
      expect(firstIssue((await harness.api.post(path(id, 'capture'), {})).data)).toBe(
        'AUTHORIZATION_EXPIRED',
      );
    });
  });
});

describe('payments sandbox: Service-Request-Id idempotency', () => {
  let harness: SandboxHarness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(() => harness.close());

  it('returns the first result for a repeated id and captures nothing again', async () => {
    const { id } = await createAuthorization(harness);
    const headers = { 'Service-Request-Id': 'capture-1' };
    const first = await harness.api.post(path(id, 'capture'), { amount: usd('10.00') }, { headers });
    const second = await harness.api.post(path(id, 'capture'), { amount: usd('10.00') }, { headers });
    expect(second.status).toBe(201);
    expect(second.data).toEqual(first.data);
    expect(await capturesOf(harness, id)).toHaveLength(1);

    const fresh = await harness.api.post(
      path(id, 'capture'),
      { amount: usd('10.00') },
      { headers: { 'Service-Request-Id': 'capture-2' } },
    );
    expect((fresh.data as { id: string }).id).not.toBe((first.data as { id: string }).id);
    expect(await capturesOf(harness, id)).toHaveLength(2);
  });

  it('accepts PayPal-Request-Id too, and an empty id means no idempotency', async () => {
    const { id } = await createAuthorization(harness);
    const headers = { 'PayPal-Request-Id': 'pp-1' };
    await harness.api.post(path(id, 'capture'), { amount: usd('1.00') }, { headers });
    await harness.api.post(path(id, 'capture'), { amount: usd('1.00') }, { headers });
    expect(await capturesOf(harness, id)).toHaveLength(1);
    const empty = { 'Service-Request-Id': '' };
    await harness.api.post(path(id, 'capture'), { amount: usd('1.00') }, { headers: empty });
    await harness.api.post(path(id, 'capture'), { amount: usd('1.00') }, { headers: empty });
    expect(await capturesOf(harness, id)).toHaveLength(3);
  });

  it('replays a refusal for a repeated id instead of processing the request again', async () => {
    const { id } = await createAuthorization(harness, { amount: usd('5.00') });
    const headers = { 'Service-Request-Id': 'too-much' };
    const first = await harness.api.post(path(id, 'capture'), { amount: usd('6.00') }, { headers });
    const second = await harness.api.post(path(id, 'capture'), { amount: usd('5.00') }, { headers });
    expect([first.status, second.status]).toEqual([422, 422]);
    expect(await capturesOf(harness, id)).toHaveLength(0);
  });

  it('captures exactly once when concurrent requests carry one id', async () => {
    const { id } = await createAuthorization(harness);
    const headers = { 'Service-Request-Id': 'concurrent' };
    // The first request stalls inside the sandbox, so the others arrive while it is in flight.
    await harness.anonymous.post('/sandbox/faults', {
      operation: 'capture',
      mode: 'stall',
      count: 1,
      stallMs: 200,
    });
    const responses = await Promise.all(
      Array.from({ length: 5 }, () =>
        harness.api.post(path(id, 'capture'), { amount: usd('25.00') }, { headers }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(responses.map((response) => (response.data as { id: string }).id)).size).toBe(1);
    expect(await capturesOf(harness, id)).toHaveLength(1);
    expect((await harness.api.get(path(id))).data).toMatchObject({ status: 'PARTIALLY_CAPTURED' });
  });
});
