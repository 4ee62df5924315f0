import { defaultApiLimits } from '../../src/api/limits';
import { randomBytes } from 'node:crypto';
import type { AxiosInstance } from 'axios';
import type { Client } from '@temporalio/client';
import Stripe from 'stripe';
import { createActivities, createPaymentsWorkerActivities } from '../../src/activities';
import { charactersClientFromConfig } from '../../src/characters/client';
import { loadConfig } from '../../src/config';
import { createPayPalProvider, subscribeStripeEndpoint } from '../../src/providers/registry';
import { LifecycleClient } from '../../src/client/lifecycle-client';
import type { PaymentsProvider } from '../../src/providers/port';
import { stripeEndpoint } from '../../src/providers/stripe/client';
import { stripeProvider } from '../../src/providers/stripe/provider';
import { stripeSignatureHeader } from '../../src/providers/stripe/webhook-signature';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import { paymentsDialect } from '../../src/providers/paypal/dialects';
import { STRIPE_WEBHOOK_ROUTE } from '../../src/webhooks/listener-url';
import { VerificationStarter } from '../../src/webhooks/verification-starter';
import { STRIPE_ENDPOINT_WEBHOOK_ID } from '../../src/providers/stripe/delivery-intake';
import { webhookVerificationWorkflowId } from '../../src/workflows/webhooks/definitions';
import { eventually } from '../helpers/eventually';
import { firstFailedTaskMessage } from '../helpers/failed-tasks';
import { startTestApi } from '../helpers/lifecycle-stack';
import { startWebhookListener, type WebhookListener } from '../helpers/sandbox-fixtures';
import { connectClient, runTestWorker, uniqueTaskQueue } from '../helpers/temporal';
import {
  bothWebhooks,
  paypalWebhooks,
  stripeVerificationStarter,
  stripeWebhooks,
} from '../helpers/webhook-intakes';
import { verificationResult as finishedVerification } from '../helpers/webhook-stack';

// Stripe's deliveries over real HTTP: the sandbox in Stripe mode signs each event with the endpoint's secrets
// (old and new, a rotation under way) and POSTs it to /webhooks/stripe; the worker verifies it with the same
// secrets and signals it into the lifecycle of the PaymentIntent it names.

const OLD_SECRET = 'whsec_old_endpoint_secret';
const NEW_SECRET = 'whsec_new_endpoint_secret';
const BODY_LIMIT_BYTES = 64 * 1024;

let sandbox: Sandbox;
let client: Client;
let taskQueue: string;
let api: AxiosInstance;
let apiUrl: string;
let listener: WebhookListener;
let provider: PaymentsProvider;
let close: () => Promise<void>;

beforeAll(async () => {
  sandbox = await startSandbox({
    mode: 'stripe',
    logger: false,
    stripeWebhookSecrets: [OLD_SECRET, NEW_SECRET],
    deliveryRetry: { attempts: 3, initialDelayMs: 200 },
  });
  provider = stripeProvider({
    apiKey: 'sk_test_sandbox',
    ...stripeEndpoint(sandbox.url),
    timeoutMs: 2000,
    webhookSecrets: [OLD_SECRET, NEW_SECRET],
  });
  taskQueue = uniqueTaskQueue('stripe-webhooks');
  const temporal = await connectClient();
  client = temporal.client;
  const worker = await runTestWorker({
    taskQueue,
    // Stripe's calls under Stripe's names (stripe.…), as a worker with PAYMENTS_PROVIDER=stripe hosts them.
    activities: createPaymentsWorkerActivities({ provider }),
  });
  const started = await startTestApi({
    lifecycles: new LifecycleClient(client, taskQueue),
    webhooks: stripeWebhooks(
      stripeVerificationStarter(client, taskQueue),
      [OLD_SECRET, NEW_SECRET],
      BODY_LIMIT_BYTES,
    ),
  });
  api = started.http;
  apiUrl = started.url;
  // A second endpoint records what the sandbox sends, for the official SDK's check.
  listener = await startWebhookListener();
  await subscribe(`${apiUrl}${STRIPE_WEBHOOK_ROUTE}`);
  await subscribe(listener.url);
  close = async () => {
    await sandbox.close();
    await listener.close();
    await worker.stop();
    await started.app.close();
    await temporal.close();
  };
});
afterAll(async () => {
  await close();
});

/** Subscribes `url` to every event through /v1/webhook_endpoints, as the stack does against Stripe. */
async function subscribe(url: string): Promise<void> {
  const endpoint = await subscribeStripeEndpoint(sandbox.url, 'sk_test_sandbox', url);
  // The sandbox signs for all its secrets and shows the newest.
  expect(endpoint).toMatchObject({ action: 'created', secret: NEW_SECRET });
}

async function sandboxPost(path: string, body: unknown = {}) {
  const response = await fetch(`${sandbox.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as { id: string };
}

/** The event of `type` the sandbox delivered to the intake whose data.object is `objectId`. */
async function deliveredEvent(type: string, objectId: string): Promise<string> {
  return eventually(
    () => listener.received.map((delivery) => JSON.parse(delivery.body.toString('utf8')) as StripeEvent),
    (events) => events.some((event) => event.type === type && event.data.object.id === objectId),
    { what: `a ${type} event of ${objectId}` },
  ).then((events) => events.find((event) => event.type === type && event.data.object.id === objectId)!.id);
}

type StripeEvent = { id: string; type: string; data: { object: { id: string } } };

/** A Stripe event body of `type` for `object`, with a fresh id. */
function eventBody(type: string, object: Record<string, unknown>, id = `evt_${randomHex()}`): string {
  return JSON.stringify({
    id,
    object: 'event',
    api_version: '2025-08-27.basil',
    created: Math.floor(Date.now() / 1000),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  });
}

function randomHex(): string {
  return randomBytes(12).toString('hex');
}

/** An intent nobody holds a lifecycle for: its event verifies, and reaches no lifecycle. */
const strayIntent = () => ({
  id: `pi_${randomHex()}`,
  object: 'payment_intent',
  amount: 1000,
  amount_received: 0,
  currency: 'usd',
  cancellation_reason: 'requested_by_customer',
  created: Math.floor(Date.now() / 1000),
});

function deliver(body: string, signature: string | undefined, to: AxiosInstance = api) {
  return to.post(STRIPE_WEBHOOK_ROUTE, Buffer.from(body, 'utf8'), {
    headers: {
      'content-type': 'application/json',
      authorization: undefined,
      ...(signature !== undefined && { 'stripe-signature': signature }),
    },
    transformRequest: (data: unknown) => data,
  });
}

const now = () => Math.floor(Date.now() / 1000);

async function runsOf(eventId: string): Promise<number> {
  const query = `WorkflowId = '${webhookVerificationWorkflowId(eventId)}'`;
  return client.workflow.count(query).then((answer) => answer.count);
}

/** The verification run's result, once the delivery has reached the intake and its run has ended. */
async function verificationResult(eventId: string) {
  await eventually(() => runExists(eventId), Boolean, { what: `a verification run of ${eventId}` });
  return finishedVerification(client, eventId);
}

async function runExists(eventId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(webhookVerificationWorkflowId(eventId)).describe();
    return true;
  } catch {
    return false;
  }
}

// What a delivered event does to a lifecycle (a capture, a refund and a dispute applied) runs for both
// providers in webhook-refunds.test.ts.
describe('Stripe deliveries', () => {
  it('verifies a charge.refunded and records it unrouted: its refunds arrive as refund events', async () => {
    const charge = { id: `ch_${randomHex()}`, object: 'charge', amount_refunded: 500 };
    const body = eventBody('charge.refunded', charge);
    const eventId = (JSON.parse(body) as { id: string }).id;
    const answer = await deliver(body, stripeSignatureHeader(body, [NEW_SECRET], now()));
    expect(answer.status).toBe(202);
    expect(await verificationResult(eventId)).toMatchObject({
      outcome: 'unrouted',
      verification: 'SUCCESS',
      eventType: 'charge.refunded',
    });
  });

  it("delivers a real refund's charge.refunded to the intake, which verifies it and records it unrouted", async () => {
    const intent = await sandboxPost('/sandbox/payment_intents', { amount: 2500, currency: 'usd' });
    const capture = await provider.captureAuthorization({
      authorizationId: intent.id,
      amount: { currency_code: 'USD', value: '25.00' },
      finalCapture: true,
      idempotencyKey: `${intent.id}/capture`,
    });
    await provider.refundCapture({
      captureId: capture.id,
      amount: { currency_code: 'USD', value: '10.00' },
      idempotencyKey: `${intent.id}/refund`,
    });
    const eventId = await deliveredEvent('charge.refunded', capture.id);
    expect(await verificationResult(eventId)).toMatchObject({
      outcome: 'unrouted',
      verification: 'SUCCESS',
      eventType: 'charge.refunded',
    });
  });

  it("signs deliveries that the official SDK's constructEvent accepts, with either secret", async () => {
    const { id: intentId } = await sandboxPost('/sandbox/payment_intents', { amount: 700, currency: 'usd' });
    const eventId = await deliveredEvent('payment_intent.amount_capturable_updated', intentId);
    await sandbox.deliveriesSettled();
    for (const delivery of listener.received) {
      const header = delivery.headers['stripe-signature'] as string;
      for (const secret of [OLD_SECRET, NEW_SECRET]) {
        const event = Stripe.webhooks.constructEvent(delivery.body, header, secret);
        expect(event.id).toMatch(/^evt_/);
      }
    }
    // The same event reached the intake too, and its run verified it.
    expect(await verificationResult(eventId)).toMatchObject({ verification: 'SUCCESS', outcome: 'unrouted' });
  });
});

describe('what the Stripe intake refuses', () => {
  it('refuses a signature by another secret, and a body changed after signing, starting no run', async () => {
    const body = eventBody('payment_intent.canceled', strayIntent());
    const eventId = (JSON.parse(body) as { id: string }).id;
    const forged = await deliver(body, stripeSignatureHeader(body, ['whsec_someone_else'], now()));
    expect(forged.status).toBe(400);
    expect(forged.data.error).toMatchObject({ code: 'WEBHOOK_DELIVERY_INVALID' });
    expect(forged.data.error.message).toMatch(
      /^Stripe-Signature: No signatures found matching the expected signature for payload/,
    );

    const tampered = body.replace('"amount":1000', '"amount":9000');
    const changed = await deliver(tampered, stripeSignatureHeader(body, [NEW_SECRET], now()));
    expect(changed.status).toBe(400);
    expect(await runExists(eventId)).toBe(false);
  });

  it('refuses a t= outside 300 s, behind or ahead, and takes one within it', async () => {
    const body = eventBody('payment_intent.canceled', strayIntent());
    const eventId = (JSON.parse(body) as { id: string }).id;
    const stale = await deliver(body, stripeSignatureHeader(body, [NEW_SECRET], now() - 330));
    expect(stale.status).toBe(400);
    expect(stale.data.error.message).toBe('Stripe-Signature: Timestamp outside the tolerance zone');
    const ahead = await deliver(body, stripeSignatureHeader(body, [NEW_SECRET], now() + 330));
    expect(ahead.status).toBe(400);
    expect(ahead.data.error.message).toBe('Stripe-Signature: Timestamp outside the tolerance zone');
    expect(await runExists(eventId)).toBe(false);

    const recent = await deliver(body, stripeSignatureHeader(body, [NEW_SECRET], now() - 240));
    expect(recent.status).toBe(202);
  });

  it('refuses a missing or garbled Stripe-Signature, a body that is no event, and one over the limit', async () => {
    const body = eventBody('payment_intent.canceled', strayIntent());
    const missing = await deliver(body, undefined);
    expect(missing.status).toBe(400);
    expect(missing.data.error).toMatchObject({
      code: 'WEBHOOK_DELIVERY_INVALID',
      message: 'missing delivery headers: Stripe-Signature',
    });
    const garbled: Array<[string, unknown]> = [
      ['v1=' + 'a'.repeat(64), 'Stripe-Signature: Unable to extract timestamp and signatures from header'],
      [
        `t=soon,v1=${'a'.repeat(64)}`,
        expect.stringMatching(/^Stripe-Signature: No signatures found matching/),
      ],
      [`t=${now()}`, 'Stripe-Signature: No signatures found with expected scheme'],
      [`t=${now()},v1=xyz`, expect.stringMatching(/^Stripe-Signature: No signatures found matching/)],
    ];
    for (const [header, message] of garbled) {
      const answer = await deliver(body, header);
      expect([answer.status, answer.data.error.message]).toEqual([400, message]);
    }

    const noEvent = JSON.stringify({ id: 'not-an-event', object: 'event' });
    const refused = await deliver(noEvent, stripeSignatureHeader(noEvent, [NEW_SECRET], now()));
    expect(refused.status).toBe(400);
    expect(refused.data.error.message).toMatch(/not a Stripe event/);

    const padding = 'x'.repeat(BODY_LIMIT_BYTES);
    const large = eventBody('payment_intent.canceled', { ...strayIntent(), description: padding });
    const tooLarge = await deliver(large, stripeSignatureHeader(large, [NEW_SECRET], now()));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.data.error.code).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('one run per event id', () => {
  it('answers a second delivery of the same event as a duplicate, re-signed or not, with one run', async () => {
    const body = eventBody('payment_intent.canceled', strayIntent());
    const eventId = (JSON.parse(body) as { id: string }).id;
    const signature = stripeSignatureHeader(body, [NEW_SECRET], now());
    const first = await deliver(body, signature);
    expect(first.status).toBe(202);
    expect(first.data).toEqual({ workflowId: `webhook-${eventId}`, status: 'accepted' });
    await verificationResult(eventId);

    // Stripe's retry signs the same event again, later; a replayed copy carries the first signature.
    const again = await deliver(body, stripeSignatureHeader(body, [NEW_SECRET], now() + 1));
    const replayed = await deliver(body, signature);
    for (const answer of [again, replayed]) {
      expect(answer.status).toBe(202);
      expect(answer.data).toEqual({ workflowId: `webhook-${eventId}`, status: 'duplicate' });
    }
    expect(
      await eventually(
        () => runsOf(eventId),
        (count) => count === 1,
      ),
    ).toBe(1);
  });
});

describe('the verification run', () => {
  it('verifies a delivery that waited in Temporal past 300 s, and rejects one the secrets did not sign', async () => {
    const starter = stripeVerificationStarter(client, taskQueue);
    const signedAt = now() - 900;
    const results = [];
    for (const secret of [NEW_SECRET, 'whsec_someone_else']) {
      const body = eventBody('payment_intent.canceled', strayIntent());
      const eventId = (JSON.parse(body) as { id: string }).id;
      const delivery = {
        headers: { 'Stripe-Signature': stripeSignatureHeader(body, [secret], signedAt) },
        body,
      };
      await starter.start(eventId, delivery, new Date(signedAt * 1000));
      results.push(await verificationResult(eventId));
    }
    expect(results.map((result) => [result.outcome, result.verification])).toEqual([
      ['unrouted', 'SUCCESS'],
      ['rejected', 'FAILURE'],
    ]);
  });
});

describe('a worker without Stripe', () => {
  it("leaves a Stripe delivery's run waiting, unchecked, until a worker with Stripe takes it", async () => {
    const queue = uniqueTaskQueue('stripe-webhooks-paypal-only');
    const config = loadConfig({});
    // A worker with PAYMENTS_PROVIDER=paypal: PayPal's calls alone (its provider is never reached here).
    const paypal = createPayPalProvider({
      baseUrl: 'http://127.0.0.1:9',
      credentials: { accessToken: 'unused' },
      timeoutMs: 300,
    });
    const paypalOnly = await runTestWorker({
      taskQueue: queue,
      activities: createActivities({
        provider: paypal,
        providers: [paypal],
        characters: charactersClientFromConfig(config),
        webhooks: {},
      }),
    });
    const body = eventBody('payment_intent.canceled', strayIntent());
    const eventId = (JSON.parse(body) as { id: string }).id;
    const delivery = {
      headers: { 'Stripe-Signature': stripeSignatureHeader(body, [NEW_SECRET], now()) },
      body,
    };
    await stripeVerificationStarter(client, queue).start(eventId, delivery, new Date());
    const handle = client.workflow.getHandle(webhookVerificationWorkflowId(eventId));
    try {
      const failedTask = await firstFailedTaskMessage(
        handle,
        'the PayPal worker to refuse the workflow task',
      );
      expect(failedTask).toMatch(/stripe\.verifyWebhookSignatureLocally.* not registered/);
      expect((await handle.describe()).status.name).toBe('RUNNING');
    } finally {
      await paypalOnly.stop();
    }
    const stripeProviderOnly = stripeProvider({
      apiKey: 'sk_test_sandbox',
      ...stripeEndpoint(sandbox.url),
      timeoutMs: 2000,
      webhookSecrets: [OLD_SECRET, NEW_SECRET],
    });
    const stripeOnly = await runTestWorker({
      taskQueue: queue,
      activities: createActivities({
        provider: stripeProviderOnly,
        providers: [stripeProviderOnly],
        characters: charactersClientFromConfig(config),
        webhooks: {},
      }),
    });
    try {
      expect(await finishedVerification(client, eventId)).toMatchObject({
        outcome: 'unrouted',
        verification: 'SUCCESS',
        webhookId: STRIPE_ENDPOINT_WEBHOOK_ID,
      });
    } finally {
      await stripeOnly.stop();
    }
  });
});

describe('a rotation of the endpoint secret', () => {
  it('verifies a delivery signed by the old secret alone, the new alone, or both', async () => {
    for (const secrets of [[OLD_SECRET], [NEW_SECRET], [OLD_SECRET, NEW_SECRET]]) {
      const body = eventBody('payment_intent.canceled', strayIntent());
      const eventId = (JSON.parse(body) as { id: string }).id;
      const answer = await deliver(body, stripeSignatureHeader(body, secrets, now()));
      expect(answer.status).toBe(202);
      expect(await verificationResult(eventId)).toMatchObject({
        verification: 'SUCCESS',
        outcome: 'unrouted',
      });
    }
  });

  it('takes a delivery signed by both on an intake that holds only the new secret, and refuses the old alone', async () => {
    const rotated = await startTestApi({
      lifecycles: new LifecycleClient(client, taskQueue),
      webhooks: stripeWebhooks(stripeVerificationStarter(client, taskQueue), [NEW_SECRET], BODY_LIMIT_BYTES),
    });
    try {
      const body = eventBody('payment_intent.canceled', strayIntent());
      const both = await deliver(
        body,
        stripeSignatureHeader(body, [OLD_SECRET, NEW_SECRET], now()),
        rotated.http,
      );
      expect(both.status).toBe(202);
      const other = eventBody('payment_intent.canceled', strayIntent());
      const oldOnly = await deliver(other, stripeSignatureHeader(other, [OLD_SECRET], now()), rotated.http);
      expect(oldOnly.status).toBe(400);
    } finally {
      await rotated.app.close();
    }
  });
});

describe("the Stripe intake's budgets", () => {
  it("answers 429 with Retry-After past its source's refusal budget, and still takes that source's genuine deliveries", async () => {
    const limited = await startTestApi({
      lifecycles: new LifecycleClient(client, taskQueue),
      webhooks: bothWebhooks(
        paypalWebhooks(
          new VerificationStarter({ client, taskQueue, mode: 'api', provider: 'paypal' }),
          paymentsDialect('paypal').transmissionHeaders,
        ),
        stripeWebhooks(stripeVerificationStarter(client, taskQueue), [NEW_SECRET], BODY_LIMIT_BYTES),
      ),
      limits: {
        ...defaultApiLimits,
        rateLimitMax: 100,
        rateLimitWindowMs: 60_000,
        callerRateLimitMax: 100,
        webhookRateLimitMax: 2,
        webhookRefusedRateLimitMax: 2,
        requestTimeoutMs: 30_000,
        headersTimeoutMs: 10_000,
      },
    });
    try {
      const statuses: number[] = [];
      for (let n = 0; n < 3; n += 1) statuses.push((await deliver('{}', 'garbled', limited.http)).status);
      expect(statuses).toEqual([400, 400, 429]);
      const refused = await deliver('{}', 'garbled', limited.http);
      expect(refused.headers['retry-after']).toBeDefined();
      expect(refused.data.error.code).toBe('RATE_LIMITED');
      // The source's refusals spend neither the provider's budget nor the callers'.
      expect((await limited.http.get('/v1/lifecycles/pi_none')).status).not.toBe(429);
      const genuine = () => {
        const body = eventBody('payment_intent.canceled', strayIntent());
        return deliver(body, stripeSignatureHeader(body, [NEW_SECRET], now()), limited.http);
      };
      const accepted: number[] = [];
      for (let n = 0; n < 3; n += 1) accepted.push((await genuine()).status);
      // Two a window: the provider's budget, sized here to 2.
      expect(accepted).toEqual([202, 202, 429]);
    } finally {
      await limited.app.close();
    }
  });
});
