import Stripe from 'stripe';
import { ProviderError, type PaymentsProvider } from '../../src/providers/port';
import { stripeEndpoint } from '../../src/providers/stripe/client';
import { parseStripeEvent } from '../../src/providers/stripe/payment-event';
import { stripeProvider } from '../../src/providers/stripe/provider';
import { ensureStripeWebhookEndpoint } from '../../src/providers/stripe/webhook-endpoints';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import { resourceViolations, type StripeResource } from '../fixtures/contract/stripe-contract';
import { rejectionOf } from '../helpers/rejection';
import { startWebhookListener, type WebhookListener } from '../helpers/sandbox-fixtures';

// The sandbox's Stripe mode: manual-capture PaymentIntents by Stripe's rules, driven through the adapter
// (the official SDK), with Stripe's idempotency, errors, faults and signed events.

const secrets = ['whsec_old', 'whsec_new'];
const usd = (value: string) => ({ currency_code: 'USD', value });

let sandbox: Sandbox;
let listener: WebhookListener;
let stripe: PaymentsProvider;

beforeAll(async () => {
  sandbox = await startSandbox({ mode: 'stripe', logger: false, stripeWebhookSecrets: secrets });
  listener = await startWebhookListener();
  await ensureStripeWebhookEndpoint(
    { apiKey: 'sk_test_sandbox', ...stripeEndpoint(sandbox.url) },
    listener.url,
  );
  stripe = stripeProvider({
    apiKey: 'sk_test_sandbox',
    ...stripeEndpoint(sandbox.url),
    timeoutMs: 2000,
    multicapture: true,
    webhookSecrets: ['whsec_new'],
  });
});
afterEach(async () => {
  await fetch(`${sandbox.url}/sandbox/faults`, { method: 'DELETE' });
});
afterAll(async () => {
  await sandbox.close();
  await listener.close();
});

async function post(path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${sandbox.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Record<string, unknown>;
}

async function heldIntent(multicapture = true, amount = 5000): Promise<string> {
  const intent = await post('/sandbox/payment_intents', { amount, currency: 'usd', multicapture });
  return intent.id as string;
}

/** A GET as the SDK sends it. */
async function stripePage(path: string) {
  const response = await fetch(`${sandbox.url}${path}`, {
    headers: { authorization: 'Bearer sk_test_sandbox' },
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** A form POST as the SDK sends it, for what the adapter never sends. */
async function stripePost(path: string, form: string, key?: string) {
  const response = await fetch(`${sandbox.url}${path}`, {
    method: 'POST',
    headers: {
      authorization: 'Bearer sk_test_sandbox',
      'content-type': 'application/x-www-form-urlencoded',
      ...(key && { 'idempotency-key': key }),
    },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

describe('sandbox in stripe mode', () => {
  it('captures a multicapture intent in parts, then refunds and disputes its charge', async () => {
    const id = await heldIntent();
    expect(await stripe.getAuthorization(id)).toMatchObject({ status: 'CREATED', amount: usd('50.00') });
    const first = await stripe.captureAuthorization({
      authorizationId: id,
      amount: usd('20.00'),
      finalCapture: false,
      idempotencyKey: `${id}/capture/1`,
    });
    expect(first).toMatchObject({ status: 'COMPLETED', amount: usd('20.00'), final_capture: false });
    expect(await stripe.getAuthorization(id)).toMatchObject({
      status: 'PARTIALLY_CAPTURED',
      captured_amount: usd('20.00'),
      amount_capturable: usd('30.00'),
    });
    const second = await stripe.captureAuthorization({
      authorizationId: id,
      amount: usd('10.00'),
      finalCapture: true,
      idempotencyKey: `${id}/capture/2`,
    });
    expect(second.final_capture).toBe(true);
    // The final capture released the other 20.00: nothing is left to capture.
    expect(await stripe.getAuthorization(id)).toMatchObject({
      status: 'PARTIALLY_CAPTURED',
      captured_amount: usd('30.00'),
    });
    const refused = await rejectionOf(
      stripe.captureAuthorization({
        authorizationId: id,
        amount: usd('1.00'),
        finalCapture: true,
        idempotencyKey: 'k3',
      }),
      ProviderError,
    );
    expect({ type: refused.type, retryable: refused.retryable }).toEqual({
      type: 'payment_intent_unexpected_state',
      retryable: false,
    });

    const refund = await stripe.refundCapture({
      captureId: first.id,
      amount: usd('5.00'),
      idempotencyKey: 'r1',
    });
    expect(refund).toMatchObject({ status: 'COMPLETED', amount: usd('5.00') });
    expect(await stripe.getCapture(first.id)).toMatchObject({
      status: 'PARTIALLY_REFUNDED',
      amount: usd('30.00'),
    });
    const tooMuch = await rejectionOf(
      stripe.refundCapture({ captureId: first.id, amount: usd('25.01'), idempotencyKey: 'r2' }),
      ProviderError,
    );
    expect(tooMuch.type).toBe('amount_too_large');

    const dispute = await post(`/sandbox/charges/${first.id}/dispute`, {});
    expect(dispute).toMatchObject({ amount: 2500, status: 'needs_response', charge: first.id });
    const afterDispute = await rejectionOf(
      stripe.refundCapture({ captureId: first.id, amount: usd('1.00'), idempotencyKey: 'r3' }),
      ProviderError,
    );
    expect(afterDispute.type).toBe('charge_disputed');
  });

  it('answers resources in the schemas Stripe publishes, the expanded charge included', async () => {
    const id = await heldIntent();
    const get = async (path: string) =>
      (await fetch(`${sandbox.url}${path}`, { headers: { authorization: 'Bearer sk_test_sandbox' } })).json();
    const intent = (await get(`/v1/payment_intents/${id}?expand[0]=latest_charge`)) as {
      latest_charge: { id: string };
    };
    expect(resourceViolations('payment_intent', intent)).toEqual([]);
    expect(resourceViolations('charge', intent.latest_charge)).toEqual([]);
    expect(resourceViolations('charge', await get(`/v1/charges/${intent.latest_charge.id}`))).toEqual([]);
    expect(resourceViolations('error', await get('/v1/payment_intents/pi_missing'))).toEqual([]);
    const refund = await stripe
      .refundCapture({ captureId: intent.latest_charge.id, idempotencyKey: 'none-captured' })
      .catch((error: unknown) => error);
    expect(refund).toBeInstanceOf(ProviderError);
  });

  it('takes one capture without multicapture and refuses final_capture=false there', async () => {
    const id = await heldIntent(false);
    const refused = await stripePost(
      `/v1/payment_intents/${id}/capture`,
      'amount_to_capture=1000&final_capture=false',
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', param: 'final_capture' });
    const captured = await stripePost(`/v1/payment_intents/${id}/capture`, 'amount_to_capture=1000');
    expect(captured.body).toMatchObject({ status: 'succeeded', amount_received: 1000, amount_capturable: 0 });
  });

  it('replays the first answer for a key, and refuses the key with other parameters', async () => {
    const id = await heldIntent();
    const path = `/v1/payment_intents/${id}/capture`;
    const first = await stripePost(path, 'amount_to_capture=1000&final_capture=false', 'same-key');
    const again = await stripePost(path, 'amount_to_capture=1000&final_capture=false', 'same-key');
    expect(again).toEqual(first);
    expect((await stripe.getAuthorization(id)).captured_amount).toEqual(usd('10.00'));
    const other = await stripePost(path, 'amount_to_capture=2000&final_capture=false', 'same-key');
    expect(other.status).toBe(400);
    expect(other.body.error.type).toBe('idempotency_error');

    // An error is saved too: the same request under its key keeps failing after the intent changed.
    const tooMuch = await stripePost(path, 'amount_to_capture=9000', 'error-key');
    expect(tooMuch.body.error.code).toBe('amount_too_large');
    expect(await stripePost(path, 'amount_to_capture=9000', 'error-key')).toEqual(tooMuch);
  });

  it('cancels a held intent once; a second cancel is refused, and the adapter counts it as voided', async () => {
    const id = await heldIntent();
    expect((await stripe.voidAuthorization({ authorizationId: id, idempotencyKey: 'v1' })).status).toBe(
      'VOIDED',
    );
    const again = await stripePost(`/v1/payment_intents/${id}/cancel`, '');
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('payment_intent_unexpected_state');
    expect((await stripe.voidAuthorization({ authorizationId: id, idempotencyKey: 'v2' })).status).toBe(
      'VOIDED',
    );
  });

  it('reauthorizes new-first: a new held intent on the same card, the old one canceled', async () => {
    const id = await heldIntent();
    const renewed = await stripe.reauthorizeAuthorization({
      authorizationId: id,
      amount: usd('40.00'),
      idempotencyKey: 'a1',
    });
    expect(renewed).toMatchObject({ status: 'CREATED', amount: usd('40.00') });
    expect(renewed.id).not.toBe(id);
    expect((await stripe.getAuthorization(id)).status).toBe('VOIDED');
    // A retry under the same key replays both steps: still one new intent.
    const retried = await stripe.reauthorizeAuthorization({
      authorizationId: id,
      amount: usd('40.00'),
      idempotencyKey: 'a1',
    });
    expect(retried.id).toBe(renewed.id);
  });

  it('expires a hold: the intent is canceled automatically and the adapter reads EXPIRED', async () => {
    const id = await heldIntent();
    await post(`/sandbox/payment_intents/${id}/expire`, {});
    expect((await stripe.getAuthorization(id)).status).toBe('EXPIRED');
  });

  it('after commit-then-drop, a retry under the same key answers the capture that happened, once', async () => {
    const id = await heldIntent();
    // The SDK itself retries a closed connection once, under the same key: two drops reach the adapter.
    await post('/sandbox/faults', { operation: 'capture', mode: 'commit-then-drop', count: 2 });
    const request = {
      authorizationId: id,
      amount: usd('50.00'),
      finalCapture: true,
      idempotencyKey: 'drop-1',
    };
    const dropped = await rejectionOf(stripe.captureAuthorization(request), ProviderError);
    expect(dropped.retryable).toBe(true);
    const retried = await stripe.captureAuthorization(request);
    expect(retried.amount).toEqual(usd('50.00'));
    expect((await stripe.getAuthorization(id)).captured_amount).toEqual(usd('50.00'));
  });

  it('finds a capture and a refund by the key they were sent under, and nothing under another', async () => {
    const id = await heldIntent(true, 10000);
    const capture = { authorizationId: id, amount: usd('20.00'), finalCapture: false, idempotencyKey: 'k-1' };
    expect(await stripe.findCapture(capture)).toEqual({ found: null });
    const captured = await stripe.captureAuthorization(capture);
    expect(await stripe.findCapture(capture)).toEqual({ found: captured });
    expect(await stripe.findCapture({ ...capture, idempotencyKey: 'k-2' })).toEqual({
      unknown: expect.stringContaining('captured 2000 in all'),
    });

    // Twelve refunds: more than a page of ten, the one sent first is on the second page.
    const refund = (key: string) => ({ captureId: captured.id, amount: usd('1.00'), idempotencyKey: key });
    const refunds = [];
    for (let n = 0; n < 12; n += 1) refunds.push(await stripe.refundCapture(refund(`r-${n}`)));
    expect(await stripe.findRefund(refund('r-0'))).toEqual({ found: refunds[0] });
    expect(await stripe.findRefund(refund('r-11'))).toEqual({ found: refunds[11] });
    expect(await stripe.findRefund(refund('r-12'))).toEqual({ found: null });
    const page = await stripePage(
      `/v1/refunds?charge=${captured.id}&limit=5&starting_after=${refunds[11]?.id}`,
    );
    expect(page.body).toMatchObject({ object: 'list', has_more: true, url: '/v1/refunds' });
    expect((page.body.data as { id: string }[]).map((each) => each.id)).toEqual(
      refunds
        .slice(6, 11)
        .reverse()
        .map((each) => each.id),
    );
    expect((await stripePage('/v1/refunds?charge=ch_missing')).status).toBe(404);
  });

  it('answers injected 500 and 429 in Stripe’s error shape, retryable, with Retry-After', async () => {
    const id = await heldIntent();
    await post('/sandbox/faults', { operation: 'get', mode: 'http429', count: 1, retryAfterSeconds: 2 });
    const limited = await rejectionOf(stripe.getAuthorization(id), ProviderError);
    expect({ retryable: limited.retryable, retryAfterMs: limited.retryAfterMs }).toEqual({
      retryable: true,
      retryAfterMs: 2000,
    });
    await post('/sandbox/faults', { operation: 'capture', mode: 'http500', count: 1 });
    const failed = await stripePost(
      `/v1/payment_intents/${id}/capture`,
      'amount_to_capture=100',
      'fault-key',
    );
    expect(failed.status).toBe(500);
    expect(resourceViolations('error', failed.body)).toEqual([]);
    // Nothing ran, so nothing was saved under the key: the retry captures.
    const retried = await stripePost(
      `/v1/payment_intents/${id}/capture`,
      'amount_to_capture=100',
      'fault-key',
    );
    expect(retried.body).toMatchObject({ amount_received: 100 });
  });

  it('refuses a request without a secret key, an unknown parameter and an unknown intent as Stripe does', async () => {
    const anonymous = await fetch(`${sandbox.url}/v1/payment_intents/pi_x`);
    expect(anonymous.status).toBe(401);
    expect(resourceViolations('error', await anonymous.json())).toEqual([]);
    const id = await heldIntent();
    const unknown = await stripePost(`/v1/payment_intents/${id}/capture`, 'amount=100');
    expect(unknown.body.error).toMatchObject({ code: 'parameter_unknown', param: 'amount' });
    const missing = await rejectionOf(stripe.getAuthorization('pi_missing'), ProviderError);
    expect(missing.type).toBe('resource_missing');
  });

  // Delivered as Stripe sends them; the adapter's mapping of money that comes back (issue 41's ledger) books them.
  // charge.refunded names no refund: the refund events carry each refund.
  const unmappedEventTypes = [
    'charge.refunded',
    'charge.dispute.funds_withdrawn',
    'charge.dispute.funds_reinstated',
    'refund.failed',
    'refund.updated',
  ];

  it('delivers every event signed for each endpoint secret, in the event schema, parseable by the adapter', async () => {
    await sandbox.deliveriesSettled();
    expect(listener.received.length).toBeGreaterThan(10);
    const types = new Set<string>();
    for (const delivery of listener.received) {
      const body = delivery.body.toString('utf8');
      const header = delivery.headers['stripe-signature'] as string;
      for (const secret of secrets) {
        expect(() => Stripe.webhooks.constructEvent(body, header, secret)).not.toThrow();
      }
      expect(
        (await stripe.verifyDelivery({ headers: delivery.headers, body }, '', 'local')).verification_status,
      ).toBe('SUCCESS');
      const event = JSON.parse(body) as { type: string; data: { object: { object: string } } };
      types.add(event.type);
      expect(resourceViolations('event', event)).toEqual([]);
      expect(resourceViolations(event.data.object.object as StripeResource, event.data.object)).toEqual([]);
      const parsed = parseStripeEvent(body);
      if (!parsed.routable && !unmappedEventTypes.includes(event.type))
        throw new Error(`${event.type}: ${parsed.reason}`);
    }
    expect([...types].sort()).toEqual(
      expect.arrayContaining([
        'charge.captured',
        'charge.dispute.created',
        'charge.expired',
        'charge.refund.updated',
        'charge.refunded',
        'payment_intent.amount_capturable_updated',
        'payment_intent.canceled',
        'payment_intent.succeeded',
        'refund.created',
      ]),
    );
  });
});
