import { randomUUID } from 'node:crypto';
import { PayPalClient, type PayPalClientOptions } from '../../src/providers/paypal/client';
import { PaymentsApiError, providerIssue } from '../../src/providers/paypal/errors';
import type { Authorization, PaymentCapture } from '../../src/providers/paypal/schemas';
import type { WebhookDelivery } from '../../src/providers/webhook-delivery';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import { startRecordingProvider, type RecordingProvider } from '../helpers/recording-provider';
import { rejectionOf } from '../helpers/rejection';

// The client against the local provider over real HTTP: every operation, the provider's refusals, token
// refresh, idempotent captures under concurrency and dropped connections, and signed webhook deliveries.

let sandbox: Sandbox;
let listener: RecordingProvider;

beforeAll(async () => {
  sandbox = await startSandbox({
    port: 0,
    logger: false,
    deliveryRetry: { attempts: 1, initialDelayMs: 100 },
  });
  listener = await startRecordingProvider((_req, res) => {
    res.writeHead(200);
    res.end();
  });
});
afterAll(async () => {
  await sandbox.close();
  await listener.close();
});
afterEach(async () => {
  await control('DELETE', '/sandbox/faults');
});

function client(options: Partial<PayPalClientOptions> = {}) {
  return new PayPalClient({
    baseUrl: sandbox.url,
    credentials: { clientId: 'sandbox-client', clientSecret: 'sandbox-secret' },
    timeoutMs: 3_000,
    ...options,
  });
}

async function control<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${sandbox.url}${path}`, {
    method,
    ...(body !== undefined && {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  });
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${await response.text()}`);
  return (response.status === 204 ? undefined : await response.json()) as T;
}

function createAuthorization(value = '100.00', intent: 'AUTHORIZE' | 'CAPTURE' = 'AUTHORIZE') {
  return control<Authorization>('POST', '/sandbox/authorizations', {
    amount: { currency_code: 'USD', value },
    intent,
  });
}

async function capturesOf(authorizationId: string) {
  return (
    await control<{ captures: PaymentCapture[] }>(
      'GET',
      `/sandbox/authorizations/${authorizationId}/captures`,
    )
  ).captures;
}

function armFault(fault: {
  operation: string;
  mode: string;
  count?: number;
  retryAfterSeconds?: number;
  stallMs?: number;
}) {
  return control('POST', '/sandbox/faults', { count: 1, ...fault });
}

function rejection(promise: Promise<unknown>): Promise<PaymentsApiError> {
  return rejectionOf(promise, PaymentsApiError);
}

describe('interface A against the sandbox', () => {
  it('gets an authorization', async () => {
    const created = await createAuthorization('25.00');
    const authorization = await client().getAuthorization(created.id);
    expect(authorization).toMatchObject({
      id: created.id,
      status: 'CREATED',
      amount: { currency_code: 'USD', value: '25.00' },
    });
  });

  it('reports an unknown authorization as a non-retryable 404', async () => {
    const error = await rejection(client().getAuthorization('NO-SUCH-AUTH'));
    expect(error).toMatchObject({ status: 404, name: 'RESOURCE_NOT_FOUND', retryable: false });
    expect(providerIssue(error)).toBe('INVALID_RESOURCE_ID');
    expect(error.debugId).toEqual(expect.any(String));
  });

  it('captures partially, then finally, and refuses to capture more', async () => {
    const { id } = await createAuthorization('100.00');
    const payments = client();
    const first = await payments.captureAuthorization(id, {
      amount: { currency_code: 'USD', value: '30.00' },
      final_capture: false,
    });
    expect(first).toMatchObject({ status: 'COMPLETED', amount: { value: '30.00' } });
    expect((await payments.getAuthorization(id)).status).toBe('PARTIALLY_CAPTURED');

    const tooMuch = await rejection(
      // Past 115 % of the authorization in all: 30.00 + 85.01.
      payments.captureAuthorization(id, { amount: { currency_code: 'USD', value: '85.01' } }, randomUUID()),
    );
    expect(tooMuch).toMatchObject({ status: 422, retryable: false });
    expect(providerIssue(tooMuch)).toBe('MAX_CAPTURE_AMOUNT_EXCEEDED');

    await payments.captureAuthorization(id, {
      amount: { currency_code: 'USD', value: '70.00' },
      final_capture: true,
    });
    expect((await payments.getAuthorization(id)).status).toBe('CAPTURED');
    const again = await rejection(payments.captureAuthorization(id, {}, randomUUID()));
    expect(providerIssue(again)).toBe('AUTHORIZATION_ALREADY_CAPTURED');
  });

  it('refuses to capture an authorization whose payment intent is not "authorize"', async () => {
    const { id } = await createAuthorization('10.00', 'CAPTURE');
    expect(providerIssue(await rejection(client().captureAuthorization(id, {})))).toBe(
      'ACTION_DOES_NOT_MATCH_INTENT',
    );
  });

  it('refuses to capture an expired authorization', async () => {
    const { id } = await createAuthorization('10.00');
    await control('POST', `/sandbox/authorizations/${id}/expire`);
    expect(providerIssue(await rejection(client().captureAuthorization(id, {})))).toBe(
      'AUTHORIZATION_EXPIRED',
    );
  });

  it('captures once for a repeated request id, and once per call without one', async () => {
    const payments = client();
    const keyed = await createAuthorization('50.00');
    const partial = { amount: { currency_code: 'USD', value: '10.00' }, final_capture: false };
    const requestId = randomUUID();
    const first = await payments.captureAuthorization(keyed.id, partial, requestId);
    const repeat = await payments.captureAuthorization(keyed.id, partial, requestId);
    expect(repeat.id).toBe(first.id);
    expect(await capturesOf(keyed.id)).toHaveLength(1);

    const unkeyed = await createAuthorization('50.00');
    await payments.captureAuthorization(unkeyed.id, partial, '');
    await payments.captureAuthorization(unkeyed.id, partial);
    expect(await capturesOf(unkeyed.id)).toHaveLength(2);
  });

  it('captures exactly once when concurrent requests share a request id', async () => {
    const { id } = await createAuthorization('40.00');
    const requestId = randomUUID();
    const payments = client();
    const captures = await Promise.all(
      Array.from({ length: 8 }, () =>
        payments.captureAuthorization(id, { amount: { currency_code: 'USD', value: '5.00' } }, requestId),
      ),
    );
    expect(new Set(captures.map((capture) => capture.id)).size).toBe(1);
    expect(await capturesOf(id)).toHaveLength(1);
  });

  it('recovers a capture whose answer was dropped by retrying with the same request id', async () => {
    const { id } = await createAuthorization('60.00');
    const requestId = randomUUID();
    const payments = client();
    await armFault({ operation: 'capture', mode: 'commit-then-drop' });
    const dropped = await rejection(payments.captureAuthorization(id, {}, requestId));
    expect(dropped).toMatchObject({ kind: 'network', retryable: true });

    const retried = await payments.captureAuthorization(id, {}, requestId);
    const captures = await capturesOf(id);
    expect(captures).toHaveLength(1);
    expect(retried.id).toBe(captures[0]?.id);
  });

  it('voids, answers a second void with the voided authorization, and refuses to capture it', async () => {
    const { id } = await createAuthorization('20.00');
    const payments = client();
    const voided = await payments.voidAuthorization(id);
    expect(voided).toMatchObject({ id, status: 'VOIDED' });
    // The provider answers PREVIOUSLY_VOIDED: the authorization is voided, as the caller asked.
    await expect(payments.voidAuthorization(id)).resolves.toMatchObject({ id, status: 'VOIDED' });
    expect(providerIssue(await rejection(payments.captureAuthorization(id, {})))).toBe(
      'AUTHORIZATION_VOIDED',
    );
  });

  it.each(['spec', 'paypal'] as const)(
    'reauthorizes in the %s dialect, into a new authorization',
    async (dialect) => {
      const { id } = await createAuthorization('80.00');
      const payments = client({ dialect });
      const reauthorized = await payments.reauthorizeAuthorization(id, { currency: 'USD', total: '75.50' });
      expect(reauthorized.id).not.toBe(id);
      expect(reauthorized).toMatchObject({
        status: 'CREATED',
        amount: { currency_code: 'USD', value: '75.50' },
      });
      expect(await payments.getAuthorization(reauthorized.id)).toMatchObject({ id: reauthorized.id });
    },
  );

  it('passes the provider refusal of a reauthorization in another currency through', async () => {
    const { id } = await createAuthorization('80.00');
    const error = await rejection(client().reauthorizeAuthorization(id, { currency: 'EUR', total: '10.00' }));
    expect(error).toMatchObject({ status: 422, retryable: false });
    expect(providerIssue(error)).toBe('AUTH_CURRENCY_MISMATCH');
  });
});

describe('transient provider failures against the sandbox', () => {
  it('reports a 500 as retryable', async () => {
    const { id } = await createAuthorization();
    await armFault({ operation: 'get', mode: 'http500' });
    expect(await rejection(client().getAuthorization(id))).toMatchObject({
      status: 500,
      retryable: true,
      kind: 'provider',
    });
    await expect(client().getAuthorization(id)).resolves.toMatchObject({ id });
  });

  it('reports a 429 as retryable with its Retry-After', async () => {
    const { id } = await createAuthorization();
    await armFault({ operation: 'void', mode: 'http429', retryAfterSeconds: 2 });
    const error = await rejection(client().voidAuthorization(id));
    expect(error).toMatchObject({
      status: 429,
      name: 'RATE_LIMIT_REACHED',
      retryable: true,
      retryAfterMs: 2_000,
    });
  });

  it('reports a stalled provider as a retryable timeout', async () => {
    const { id } = await createAuthorization();
    await armFault({ operation: 'reauthorize', mode: 'stall', stallMs: 3_000 });
    const error = await rejection(
      client({ timeoutMs: 300 }).reauthorizeAuthorization(id, { currency: 'USD', total: '1.00' }),
    );
    expect(error).toMatchObject({ kind: 'timeout', retryable: true });
  });
});

describe('authentication against the sandbox', () => {
  const tokenStats = () => control<{ issued: number; active: number }>('GET', '/sandbox/tokens');

  it('asks for one token for many calls, and a fresh one after the provider revokes it', async () => {
    const { id } = await createAuthorization();
    const payments = client();
    const before = (await tokenStats()).issued;
    await Promise.all([
      payments.getAuthorization(id),
      payments.getAuthorization(id),
      payments.getAuthorization(id),
    ]);
    await payments.getAuthorization(id);
    expect((await tokenStats()).issued).toBe(before + 1);

    await control('DELETE', '/sandbox/tokens');
    await expect(payments.getAuthorization(id)).resolves.toMatchObject({ id });
    expect((await tokenStats()).issued).toBe(before + 2);
  });

  it('refuses wrong client credentials with a non-retryable error that does not carry the secret', async () => {
    const error = await rejection(
      client({
        credentials: { clientId: 'sandbox-client', clientSecret: 'wrong-secret' },
      }).listWebhookEventTypes(),
    );
    expect(error).toMatchObject({ status: 401, name: 'invalid_client', retryable: false });
    expect(JSON.stringify(error) + error.message + String(error.stack)).not.toContain('wrong-secret');
  });
});

describe('interface B against the sandbox', () => {
  it('creates, gets, updates, lists and deletes a webhook', async () => {
    const payments = client();
    const url = `${listener.url}/crud-${randomUUID()}`;
    const created = await payments.createWebhook({
      url,
      event_types: [{ name: 'PAYMENT.CAPTURE.COMPLETED' }],
    });
    expect(created).toMatchObject({ url, event_types: [{ name: 'PAYMENT.CAPTURE.COMPLETED' }] });
    expect(await payments.getWebhook(created.id)).toMatchObject({ id: created.id, url });

    const newUrl = `${listener.url}/crud-${randomUUID()}`;
    const updated = await payments.updateWebhook(created.id, [
      { op: 'replace', path: '/url', value: newUrl },
      { op: 'replace', path: '/event_types', value: [{ name: 'PAYMENT.AUTHORIZATION.VOIDED' }] },
    ]);
    expect(updated).toMatchObject({
      id: created.id,
      url: newUrl,
      event_types: [{ name: 'PAYMENT.AUTHORIZATION.VOIDED' }],
    });

    const ids = (list: { webhooks: { id: string }[] }) => list.webhooks.map((webhook) => webhook.id);
    expect(ids(await payments.listWebhooks())).toContain(created.id);
    expect(ids(await payments.listWebhooks(''))).toContain(created.id);
    expect(ids(await payments.listWebhooks('ACCOUNT'))).not.toContain(created.id);

    await expect(payments.deleteWebhook(created.id)).resolves.toBeUndefined();
    expect(await rejection(payments.getWebhook(created.id))).toMatchObject({ status: 404, retryable: false });
    expect(providerIssue(await rejection(payments.deleteWebhook(created.id)))).toBe('INVALID_RESOURCE_ID');
  });

  it('passes a refused subscription through as a non-retryable 400 naming the issue', async () => {
    const error = await rejection(
      client().createWebhook({ url: `${listener.url}/bad`, event_types: [{ name: 'NOT.AN.EVENT' }] }),
    );
    expect(error).toMatchObject({ status: 400, name: 'INVALID_REQUEST', retryable: false });
    expect(providerIssue(error)).toBe('INVALID_EVENT_TYPE');
  });

  it('lists the event types', async () => {
    const { event_types } = await client().listWebhookEventTypes();
    expect(event_types.map((type) => type.name)).toEqual(
      expect.arrayContaining(['PAYMENT.CAPTURE.COMPLETED', 'PAYMENT.AUTHORIZATION.VOIDED']),
    );
  });
});

describe('webhook signature verification against the sandbox', () => {
  let webhookId: string;
  let delivery: WebhookDelivery;

  beforeAll(async () => {
    const path = `/deliveries-${randomUUID()}`;
    const payments = client();
    webhookId = (
      await payments.createWebhook({
        url: `${listener.url}${path}`,
        event_types: [{ name: 'PAYMENT.AUTHORIZATION.VOIDED' }],
      })
    ).id;
    const { id } = await createAuthorization('12.00');
    await payments.voidAuthorization(id);
    await sandbox.deliveriesSettled();
    const received = listener.requests.find((request) => request.path === path);
    if (!received) throw new Error('the sandbox delivered no event to the listener');
    delivery = { headers: received.headers, body: received.body };
  });

  it('verifies a genuine delivery, body as bytes or as text, and leaves the delivery readable', async () => {
    const bodyBefore = Buffer.from(delivery.body);
    const payments = client();
    await expect(payments.verifyWebhookSignature(delivery, webhookId)).resolves.toEqual({
      verification_status: 'SUCCESS',
    });
    await expect(
      payments.verifyWebhookSignature({ ...delivery, body: delivery.body.toString() }, webhookId),
    ).resolves.toEqual({
      verification_status: 'SUCCESS',
    });
    expect(Buffer.from(delivery.body).equals(bodyBefore)).toBe(true);
    expect(JSON.parse(delivery.body.toString())).toMatchObject({
      event_type: 'PAYMENT.AUTHORIZATION.VOIDED',
    });
  });

  it('fails the verification of a re-serialized body or of another webhook id', async () => {
    const payments = client();
    const reindented = JSON.stringify(JSON.parse(delivery.body.toString()), null, 2);
    await expect(
      payments.verifyWebhookSignature({ ...delivery, body: reindented }, webhookId),
    ).resolves.toEqual({
      verification_status: 'FAILURE',
    });
    await expect(payments.verifyWebhookSignature(delivery, 'WH-OTHER')).resolves.toEqual({
      verification_status: 'FAILURE',
    });
  });

  it('verifies with PAYPAL-* headers in the paypal dialect', async () => {
    const paypalHeaders = Object.fromEntries(
      Object.entries(delivery.headers).map(([name, value]) => [name.replace(/^service-/i, 'PAYPAL-'), value]),
    );
    await expect(
      client({ dialect: 'paypal' }).verifyWebhookSignature(
        { headers: paypalHeaders, body: delivery.body },
        webhookId,
      ),
    ).resolves.toEqual({ verification_status: 'SUCCESS' });
  });

  it('sends tricky raw bodies the provider reads as JSON', async () => {
    const tricky = '{"z":1.0, "big":123456789012345678901234567890,\n "s":"\\u2028\\ud83d\\ude00 ü"}';
    await expect(
      client().verifyWebhookSignature({ headers: delivery.headers, body: tricky }, webhookId),
    ).resolves.toEqual({
      verification_status: 'FAILURE',
    });
  });

  it('refuses a delivery without a body before asking for a token or sending anything', async () => {
    const before = await control<{ issued: number }>('GET', '/sandbox/tokens');
    const error = await rejection(
      client().verifyWebhookSignature({ headers: delivery.headers, body: '' }, webhookId),
    );
    expect(error.message).toMatch(/webhook cannot be verified for a request with an empty body/i);
    expect((await control<{ issued: number }>('GET', '/sandbox/tokens')).issued).toBe(before.issued);
  });
});
