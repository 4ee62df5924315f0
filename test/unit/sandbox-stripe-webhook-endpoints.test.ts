import Stripe from 'stripe';
import type { PaymentsProvider } from '../../src/providers/port';
import { stripeEndpoint } from '../../src/providers/stripe/client';
import { stripeProvider } from '../../src/providers/stripe/provider';
import { ensureStripeWebhookEndpoint } from '../../src/providers/stripe/webhook-endpoints';
import { stripeEnabledEventNames } from '../../src/sandbox/stripe/event-names';
import { stripeEventTypes } from '../../src/sandbox/stripe/events';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import { requestViolations, resourceViolations } from '../fixtures/contract/stripe-contract';
import { startWebhookListener, type WebhookListener } from '../helpers/sandbox-fixtures';

// Stripe's /v1/webhook_endpoints in the sandbox's Stripe mode: created, listed, retrieved and deleted as
// Stripe answers them, enabled_events checked against Stripe's event types, and an endpoint made there
// receiving what it subscribed to, signed with the secret its creation showed.

const secrets = ['whsec_old_rotating_out', 'whsec_new_endpoint_secret'];
const apiKey = 'sk_test_sandbox';

let sandbox: Sandbox;
let listener: WebhookListener;
let stripe: PaymentsProvider;

beforeAll(async () => {
  // Endpoints nobody listens at (127.0.0.1:9) get one attempt each, so deliveries settle at once.
  sandbox = await startSandbox({
    mode: 'stripe',
    logger: false,
    stripeWebhookSecrets: secrets,
    deliveryRetry: { attempts: 1, initialDelayMs: 10, timeoutMs: 2000 },
  });
  listener = await startWebhookListener();
  stripe = stripeProvider({
    apiKey,
    ...stripeEndpoint(sandbox.url),
    timeoutMs: 2000,
    webhookSecrets: secrets,
  });
});
afterAll(async () => {
  await sandbox.close();
  await listener.close();
});

/** A request as the SDK sends it: a form body on POST, a query on GET. */
async function stripeCall(method: 'GET' | 'POST' | 'DELETE', path: string, form = '') {
  const response = await fetch(`${sandbox.url}${path}${method === 'GET' && form ? `?${form}` : ''}`, {
    method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(method === 'POST' && { 'content-type': 'application/x-www-form-urlencoded' }),
    },
    ...(method === 'POST' && { body: form }),
  });
  return {
    status: response.status,
    body: (await response.json()) as { data: Array<{ id: string; url: string }> } & Record<string, any>,
  };
}

const endpointForm = (url: string, ...events: string[]) =>
  [`url=${encodeURIComponent(url)}`, ...events.map((name, i) => `enabled_events[${i}]=${name}`)].join('&');

describe("the sandbox's Stripe webhook endpoints", () => {
  it('creates an endpoint as Stripe does, its secret shown once; the adapter keeps one already there', async () => {
    const url = 'http://127.0.0.1:9/stripe/created';
    expect(requestViolations('create_webhook_endpoint', endpointForm(url, '*'))).toEqual([]);
    const created = await ensureStripeWebhookEndpoint({ apiKey, ...stripeEndpoint(sandbox.url) }, url);
    expect(created).toMatchObject({ url, enabledEvents: ['*'], action: 'created', secret: secrets[1] });
    expect(created.id).toMatch(/^we_/);

    const again = await ensureStripeWebhookEndpoint({ apiKey, ...stripeEndpoint(sandbox.url) }, url);
    expect(again).toEqual({ id: created.id, url, enabledEvents: ['*'], action: 'kept' });

    const retrieved = await stripeCall('GET', `/v1/webhook_endpoints/${created.id}`);
    expect(retrieved.status).toBe(200);
    expect(resourceViolations('webhook_endpoint', retrieved.body)).toEqual([]);
    expect(retrieved.body).toMatchObject({
      id: created.id,
      object: 'webhook_endpoint',
      url,
      enabled_events: ['*'],
      status: 'enabled',
      livemode: false,
      metadata: {},
    });
    expect(retrieved.body).not.toHaveProperty('secret');
  });

  it('lists endpoints newest first in a list envelope, a page at a time', async () => {
    const made: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      const answer = await stripeCall(
        'POST',
        '/v1/webhook_endpoints',
        `${endpointForm(`http://127.0.0.1:9/stripe/list-${name}`, 'charge.refunded')}&description=${name}&metadata[team]=payments`,
      );
      expect(answer.status).toBe(200);
      expect(resourceViolations('webhook_endpoint', answer.body)).toEqual([]);
      expect(answer.body).toMatchObject({ description: name, metadata: { team: 'payments' } });
      made.push(answer.body.id as string);
    }
    const first = await stripeCall('GET', '/v1/webhook_endpoints', 'limit=2');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ object: 'list', has_more: true, url: '/v1/webhook_endpoints' });
    expect(first.body.data.map((endpoint) => endpoint.id)).toEqual([made[2], made[1]]);
    for (const endpoint of first.body.data) expect(endpoint).not.toHaveProperty('secret');
    const next = await stripeCall('GET', '/v1/webhook_endpoints', `limit=2&starting_after=${made[1]}`);
    expect(next.body.data[0]?.id).toBe(made[0]);
  });

  it('refuses an event type Stripe does not have, naming the parameter, and a missing url or enabled_events', async () => {
    const unknown = await stripeCall(
      'POST',
      '/v1/webhook_endpoints',
      endpointForm('http://127.0.0.1:9/stripe/refused', 'charge.refunded', 'charge.refundedd'),
    );
    expect(unknown.status).toBe(400);
    expect(resourceViolations('error', unknown.body)).toEqual([]);
    expect(unknown.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'parameter_invalid_string',
      param: 'enabled_events[1]',
    });
    expect(unknown.body.error.message).toMatch(/^Invalid enabled_events\[1\]: must be one of \*, /);

    const noUrl = await stripeCall('POST', '/v1/webhook_endpoints', 'enabled_events[0]=*');
    expect([noUrl.status, noUrl.body.error.code, noUrl.body.error.param]).toEqual([
      400,
      'parameter_missing',
      'url',
    ]);
    const noEvents = await stripeCall('POST', '/v1/webhook_endpoints', 'url=http%3A%2F%2F127.0.0.1%3A9%2Fx');
    expect([noEvents.status, noEvents.body.error.code, noEvents.body.error.param]).toEqual([
      400,
      'parameter_missing',
      'enabled_events',
    ]);
    const badUrl = await stripeCall('POST', '/v1/webhook_endpoints', endpointForm('not a url', '*'));
    expect([badUrl.status, badUrl.body.error.param]).toEqual([400, 'url']);

    const listed = await stripeCall('GET', '/v1/webhook_endpoints', 'limit=100');
    const urls = listed.body.data.map((endpoint) => endpoint.url);
    expect(urls).not.toContain('http://127.0.0.1:9/stripe/refused');
  });

  it('deletes an endpoint; it is then missing', async () => {
    const created = await stripeCall(
      'POST',
      '/v1/webhook_endpoints',
      endpointForm('http://127.0.0.1:9/stripe/deleted', '*'),
    );
    const deleted = await stripeCall('DELETE', `/v1/webhook_endpoints/${created.body.id}`);
    expect(deleted).toEqual({
      status: 200,
      body: { id: created.body.id, object: 'webhook_endpoint', deleted: true },
    });
    const missing = await stripeCall('GET', `/v1/webhook_endpoints/${created.body.id}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ type: 'invalid_request_error', code: 'resource_missing' });
  });

  it('delivers charge.refunded after a refund to an endpoint subscribed to it, and nothing else', async () => {
    const endpoint = await ensureStripeWebhookEndpoint(
      { apiKey, ...stripeEndpoint(sandbox.url) },
      listener.url,
      ['charge.refunded'],
    );
    const intent = await fetch(`${sandbox.url}/sandbox/payment_intents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 4000, currency: 'usd' }),
    }).then(async (response) => (await response.json()) as { id: string; latest_charge: { id: string } });
    const capture = await stripe.captureAuthorization({
      authorizationId: intent.id,
      amount: { currency_code: 'USD', value: '40.00' },
      finalCapture: true,
      idempotencyKey: `${intent.id}/capture`,
    });
    await stripe.refundCapture({
      captureId: capture.id,
      amount: { currency_code: 'USD', value: '15.00' },
      idempotencyKey: `${intent.id}/refund`,
    });
    await sandbox.deliveriesSettled();

    expect(listener.received).toHaveLength(1);
    const [delivery] = listener.received;
    const event = Stripe.webhooks.constructEvent(
      delivery!.body,
      delivery!.headers['stripe-signature'] as string,
      endpoint.secret!,
    );
    expect(event.type).toBe('charge.refunded');
    expect(resourceViolations('event', event)).toEqual([]);
    const charge = event.data.object as Stripe.Charge;
    expect(resourceViolations('charge', charge)).toEqual([]);
    expect(charge).toMatchObject({
      id: intent.latest_charge.id,
      object: 'charge',
      payment_intent: intent.id,
      amount_captured: 4000,
      amount_refunded: 1500,
      refunded: false,
    });
  });

  it('delivers only event types Stripe lists', () => {
    expect(stripeEventTypes.filter((type) => !stripeEnabledEventNames.has(type))).toEqual([]);
  });
});
