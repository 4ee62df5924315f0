import { paypalDialect } from '../../src/providers/paypal/dialects';
import { webhookVerificationRequestBody } from '../../src/providers/paypal/webhook-verification-request';
import {
  authorizationPath as path,
  capturesOf,
  createAuthorization,
  firstIssue,
  postVerifyRequest,
  startHarness,
  startWebhookListener,
  usd,
  withHarness,
  type SandboxHarness,
} from '../helpers/sandbox-fixtures';

// The sandbox's `paypal` mode answers as PayPal's published Payments v2 and Webhooks v1 do, where the
// spec mode answers what the spec says (or, where it is silent, the whole resource).

const representation = { headers: { prefer: 'return=representation' } };

describe('payments sandbox in paypal mode: Prefer', () => {
  let harness: SandboxHarness;
  beforeAll(async () => {
    harness = await startHarness({ mode: 'paypal' });
  });
  afterAll(() => harness.close());

  it('answers a capture minimal by default: 201 with id, status and links only', async () => {
    const { id } = await createAuthorization(harness);
    const capture = await harness.api.post(path(id, 'capture'), { amount: usd('10.00') });
    expect(capture.status).toBe(201);
    expect(Object.keys(capture.data as object).sort()).toEqual(['id', 'links', 'status']);
  });

  it('answers the whole capture for Prefer: return=representation', async () => {
    const { id } = await createAuthorization(harness);
    const capture = await harness.api.post(path(id, 'capture'), { amount: usd('10.00') }, representation);
    expect(capture.status).toBe(201);
    expect(capture.data).toMatchObject({ status: 'COMPLETED', amount: usd('10.00'), final_capture: false });
  });

  it('answers a void 204 by default and 200 with the authorization for return=representation', async () => {
    const minimal = await createAuthorization(harness);
    const voided = await harness.api.post(path(minimal.id, 'void'));
    expect(voided.status).toBe(204);
    expect(voided.data).toBe('');

    const whole = await createAuthorization(harness);
    const answered = await harness.api.post(path(whole.id, 'void'), undefined, representation);
    expect(answered.status).toBe(200);
    expect(answered.data).toMatchObject({ id: whole.id, status: 'VOIDED', amount: usd('100.00') });
  });

  it('answers a reauthorization minimal by default', async () => {
    const { id } = await createAuthorization(harness);
    const renewed = await harness.api.post(path(id, 'reauthorize'), { amount: usd('50.00') });
    expect(renewed.status).toBe(201);
    expect(Object.keys(renewed.data as object).sort()).toEqual(['id', 'links', 'status']);
  });
});

describe('payments sandbox in paypal mode: request ids', () => {
  it('keys idempotency by PayPal-Request-Id only', async () => {
    await withHarness({ mode: 'paypal' }, async (harness) => {
      const { id } = await createAuthorization(harness);
      const keyed = { headers: { 'PayPal-Request-Id': 'pp-1' } };
      const first = await harness.api.post(path(id, 'capture'), { amount: usd('10.00') }, keyed);
      const again = await harness.api.post(path(id, 'capture'), { amount: usd('10.00') }, keyed);
      expect(again.data).toEqual(first.data);
      const spec = { headers: { 'Service-Request-Id': 'svc-1' } };
      await harness.api.post(path(id, 'capture'), { amount: usd('10.00') }, spec);
      await harness.api.post(path(id, 'capture'), { amount: usd('10.00') }, spec);
      expect(await capturesOf(harness, id)).toHaveLength(3);
    });
  });

  it('replays a reauthorization under its PayPal-Request-Id instead of refusing a second one', async () => {
    await withHarness({ mode: 'paypal' }, async (harness) => {
      const { id } = await createAuthorization(harness);
      const keyed = { headers: { 'PayPal-Request-Id': 'reauth-1' } };
      const first = await harness.api.post(path(id, 'reauthorize'), { amount: usd('50.00') }, keyed);
      const again = await harness.api.post(path(id, 'reauthorize'), { amount: usd('50.00') }, keyed);
      expect(again.status).toBe(201);
      expect(again.data).toEqual(first.data);
    });
  });
});

describe('payments sandbox in paypal mode: statuses and errors', () => {
  it("shows an expired authorization with PayPal's statuses only: its status stays, expiration_time is past", async () => {
    let now = new Date('2026-03-01T10:00:00Z');
    const options = { mode: 'paypal' as const, now: () => now, authorizationValidityDays: 3 };
    await withHarness({ ...options, tokenTtlSeconds: 30 * 86_400 }, async (harness) => {
      const { id } = await createAuthorization(harness);
      await harness.api.post(path(id, 'capture'), { amount: usd('10.00') });
      now = new Date('2026-03-04T10:00:00Z');
      const read = await harness.api.get(path(id));
      expect(read.data).toMatchObject({
        status: 'PARTIALLY_CAPTURED',
        expiration_time: '2026-03-04T10:00:00Z',
      });
      expect(firstIssue((await harness.api.post(path(id, 'capture'), {})).data)).toBe(
        'AUTHORIZATION_EXPIRED',
      );

      const other = await createAuthorization(harness);
      const expired = await harness.anonymous.post(`/sandbox/authorizations/${other.id}/expire`);
      expect(expired.data).toMatchObject({ status: 'CREATED' });
      expect((await harness.api.get(path(other.id))).data).toMatchObject({ status: 'CREATED' });
      expect(firstIssue((await harness.api.post(path(other.id, 'void'))).data)).toBe('AUTHORIZATION_EXPIRED');
    });
  });

  it('moves an end where a test says; past, the status stays and captures are refused AUTHORIZATION_EXPIRED', async () => {
    let now = new Date('2026-03-01T10:00:00Z');
    await withHarness({ mode: 'paypal', now: () => now, tokenTtlSeconds: 30 * 86_400 }, async (harness) => {
      const { id } = await createAuthorization(harness);
      const end = '2026-03-01T11:00:00Z';
      const moved = await harness.anonymous.post(`/sandbox/authorizations/${id}/expiration`, {
        expiration_time: end,
      });
      expect(moved.data).toMatchObject({ status: 'CREATED', expiration_time: end });
      now = new Date('2026-03-01T11:00:00Z');
      expect((await harness.api.get(path(id))).data).toMatchObject({
        status: 'CREATED',
        expiration_time: end,
      });
      expect(firstIssue((await harness.api.post(path(id, 'capture'), {})).data)).toBe(
        'AUTHORIZATION_EXPIRED',
      );
      const again = await harness.anonymous.post(`/sandbox/authorizations/${id}/expiration`, {
        expiration_time: '2026-03-20T00:00:00Z',
      });
      expect(firstIssue(again.data)).toBe('AUTHORIZATION_EXPIRED');
    });
  });

  it("answers 401 in PayPal's error shape", async () => {
    await withHarness({ mode: 'paypal' }, async (harness) => {
      const { id } = await createAuthorization(harness);
      const refused = await harness.anonymous.get(path(id));
      expect(refused.status).toBe(401);
      expect(refused.data).toEqual({
        name: 'AUTHENTICATION_FAILURE',
        message:
          'Authentication failed due to missing authorization header, or invalid authentication credentials.',
        debug_id: expect.any(String),
      });
    });
  });
});

describe('payments sandbox in paypal mode: webhooks', () => {
  it('lets a webhook subscribe to every Payments v2 event type PayPal lists', async () => {
    await withHarness({ mode: 'paypal' }, async (harness) => {
      const names = [
        'PAYMENT.AUTHORIZATION.CREATED',
        'PAYMENT.AUTHORIZATION.VOIDED',
        'PAYMENT.CAPTURE.COMPLETED',
        'PAYMENT.CAPTURE.DECLINED',
        'PAYMENT.CAPTURE.DENIED',
        'PAYMENT.CAPTURE.PENDING',
        'PAYMENT.CAPTURE.REFUNDED',
        'PAYMENT.CAPTURE.REVERSED',
      ];
      const created = await harness.api.post('/v1/notifications/webhooks', {
        url: 'https://merchant.example/hooks/all',
        event_types: names.map((name) => ({ name })),
      });
      expect(created.status).toBe(201);
      const offered = await harness.api.get('/v1/notifications/webhooks-event-types');
      const offeredNames = (offered.data as { event_types: Array<{ name: string }> }).event_types.map(
        (type) => type.name,
      );
      expect(offeredNames.sort()).toEqual(names);
    });
  });

  it('signs deliveries with PAYPAL-* transmission headers that its verify endpoint accepts', async () => {
    const listener = await startWebhookListener();
    try {
      await withHarness({ mode: 'paypal' }, async (harness) => {
        const webhook = await harness.api.post('/v1/notifications/webhooks', {
          url: listener.url,
          event_types: [{ name: 'PAYMENT.CAPTURE.COMPLETED' }],
        });
        const webhookId = (webhook.data as { id: string }).id;
        const { id } = await createAuthorization(harness);
        await harness.api.post(path(id, 'capture'), {});
        const [delivery] = await listener.waitFor(1);
        const headers = Object.keys(delivery!.headers).filter((name) => name.includes('transmission'));
        expect(headers.sort()).toEqual([
          'paypal-transmission-id',
          'paypal-transmission-sig',
          'paypal-transmission-time',
        ]);
        expect(delivery!.headers['paypal-auth-algo']).toBe('SHA256withRSA');
        expect(delivery!.headers['paypal-cert-url']).toBe(harness.sandbox.certificateUrl);
        expect(delivery!.headers['service-transmission-sig']).toBeUndefined();

        const body = webhookVerificationRequestBody(
          { headers: delivery!.headers, body: delivery!.body },
          webhookId,
          paypalDialect.transmissionHeaders,
        );
        const verified = await postVerifyRequest(harness, body);
        expect(verified.data).toEqual({ verification_status: 'SUCCESS' });
      });
    } finally {
      await listener.close();
    }
  });
});
