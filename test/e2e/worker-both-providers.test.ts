import { randomUUID } from 'node:crypto';
import axios from 'axios';
import type { Client } from '@temporalio/client';
import { LifecycleClient } from '../../src/client/lifecycle-client';
import { runService, waitForHttp, type ServiceProcess } from '../../src/dev/child-process';
import { SANDBOX_STRIPE_API_KEY } from '../../src/config';
import { findFreePort } from '../../src/dev/ports';
import { subscribeStripeEndpoint } from '../../src/providers/registry';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import { STRIPE_WEBHOOK_ROUTE, WEBHOOK_ROUTE } from '../../src/webhooks/listener-url';
import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { webhookVerificationWorkflowType } from '../../src/workflows/webhooks/definitions';
import { eventually } from '../helpers/eventually';
import { createSandboxAuthorization } from '../helpers/lifecycle-stack';
import {
  connectClient,
  startWorkerProcess,
  temporalAddress,
  TEST_CODEC_KEYS_ENV,
  uniqueTaskQueue,
} from '../helpers/temporal';

// The service's own worker and API processes with PAYMENTS_PROVIDER=paypal,stripe: one task queue, a PayPal
// lifecycle and a Stripe lifecycle side by side, each calling its own provider, and each provider's webhook
// deliveries checked by that provider's adapter (Stripe's HMAC, PayPal's verify-webhook-signature) on the
// same worker.

let paypal: Sandbox;
let stripe: Sandbox;
let client: Client;
let closeClient: () => Promise<void>;
let worker: ServiceProcess | undefined;
let api: ServiceProcess | undefined;
let lifecycles: LifecycleClient;
const taskQueue = uniqueTaskQueue('both-providers');

beforeAll(async () => {
  paypal = await startSandbox({ logger: false });
  stripe = await startSandbox({ mode: 'stripe', logger: false });
  ({ client, close: closeClient } = await connectClient());
  lifecycles = new LifecycleClient(client, taskQueue);
  // Each sandbox delivers every event to its intake on the API: PayPal's route and Stripe's (subscribed through
  // /v1/webhook_endpoints, as against Stripe).
  const [apiPort, apiMetricsPort] = [await findFreePort(), await findFreePort()];
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const paypalWebhook = await subscribe(paypal, `${apiUrl}${WEBHOOK_ROUTE}`);
  await subscribeStripeEndpoint(stripe.url, SANDBOX_STRIPE_API_KEY, `${apiUrl}${STRIPE_WEBHOOK_ROUTE}`);
  const both = { PAYMENTS_PROVIDER: 'paypal,stripe', STRIPE_BASE_URL: stripe.url };
  api = runService('api', 'src/api/main.ts', {
    ...both,
    TEMPORAL_ADDRESS: temporalAddress(),
    TEMPORAL_TASK_QUEUE: taskQueue,
    PAYLOAD_CODEC_KEYS: TEST_CODEC_KEYS_ENV,
    API_PORT: String(apiPort),
    API_METRICS_PORT: String(apiMetricsPort),
    PAYPAL_BASE_URL: paypal.url,
    WEBHOOK_ID: paypalWebhook,
    WEBHOOK_CERT_HOSTS: new URL(paypal.url).origin,
    LOG_LEVEL: 'warn',
  });
  [worker] = await Promise.all([
    startWorkerProcess(taskQueue, paypal.url, { ...both, STRIPE_MULTICAPTURE: 'true' }),
    waitForHttp(`${apiUrl}/health`, api, 90_000),
  ]);
});

afterAll(async () => {
  await api?.stop();
  await worker?.stop();
  await closeClient?.();
  await paypal?.close();
  await stripe?.close();
});

/** Subscribes `url` to every event of the PayPal sandbox; the subscription's id. */
async function subscribe(sandbox: Sandbox, url: string): Promise<string> {
  const response = await fetch(`${sandbox.url}/sandbox/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url, event_types: [{ name: '*' }] }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

/** The lifecycle's state once it has recorded a provider event of `eventType`. */
function recorded(authorizationId: string, eventType: string): Promise<LifecycleState> {
  return eventually(
    async () => (await lifecycles.state(authorizationId))!,
    (state) => state.recentEvents.some((event) => event.eventType === eventType),
    { what: `${authorizationId} to record a ${eventType} delivery`, timeoutMs: 30_000 },
  );
}

it('runs a PayPal and a Stripe lifecycle on one worker, each against its own provider', async () => {
  const authorization = await createSandboxAuthorization(
    axios.create({ baseURL: paypal.url, validateStatus: () => true }),
    '80.00',
  );
  const intent = (await (
    await fetch(`${stripe.url}/sandbox/payment_intents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 8000, currency: 'usd', multicapture: true }),
    })
  ).json()) as { id: string };

  const paypalStart = await lifecycles.start({ authorizationId: authorization.id });
  const stripeStart = await lifecycles.start({ authorizationId: intent.id });
  expect(paypalStart.state).toMatchObject({ provider: 'paypal', maxCaptures: 100 });
  expect(stripeStart.state).toMatchObject({ provider: 'stripe', maxCaptures: 50 });

  const paypalCapture = await lifecycles.capture(authorization.id, {
    amount: '30.00',
    idempotencyKey: randomUUID(),
  });
  const stripeCapture = await lifecycles.capture(intent.id, {
    amount: '30.00',
    idempotencyKey: randomUUID(),
  });
  expect(paypalCapture).toMatchObject({ status: 'COMPLETED', amount: { value: '30.00' } });
  expect(stripeCapture).toMatchObject({ status: 'COMPLETED', amount: { value: '30.00' } });
  expect(stripeCapture.id).toMatch(/^ch_.+-1$/);

  const atStripe = (await (
    await fetch(`${stripe.url}/v1/payment_intents/${intent.id}`, {
      headers: { authorization: 'Bearer sk_test_sandbox' },
    })
  ).json()) as { amount_received: number };
  expect(atStripe.amount_received).toBe(3000);
  const atPaypal = await axios.get<{ captures: { id: string }[] }>(
    `${paypal.url}/sandbox/authorizations/${authorization.id}/captures`,
  );
  expect(atPaypal.data.captures.map((capture) => capture.id)).toEqual([paypalCapture.id]);

  // The captures' deliveries: the sandboxes sign and POST them to the API, its runs are verified on the worker.
  const paypalState = await recorded(authorization.id, 'capture.completed');
  const stripeState = await recorded(intent.id, 'capture.completed');
  const paypalEvent = paypalState.recentEvents.find((event) => event.eventType === 'capture.completed')!;
  const stripeEvent = stripeState.recentEvents.find((event) => event.eventType === 'capture.completed')!;
  expect(stripeEvent.id).toMatch(/^evt_/);
  expect(paypalEvent.id).not.toMatch(/^evt_/);

  // Each run names its provider (absent: PayPal) and ends delivered into its own lifecycle. A run signals its
  // lifecycle before it completes, and the list shows it completed a little later.
  const isStripeRun = (run: { workflowId: string }) => run.workflowId === `webhook-${stripeEvent.id}`;
  const isPaypalRun = (run: { result: unknown }) =>
    (run.result as { event?: { id?: string } } | undefined)?.event?.id === paypalEvent.id;
  const runs = await eventually(
    verificationRuns,
    (listed) => listed.some(isStripeRun) && listed.some(isPaypalRun),
    {
      what: "both capture events' verification runs to be listed completed",
    },
  );
  const stripeRun = runs.find(isStripeRun);
  expect(stripeRun?.input).toMatchObject({ provider: 'stripe', mode: 'local', webhookId: 'stripe-endpoint' });
  expect(stripeRun?.result).toMatchObject({
    outcome: 'delivered',
    lifecycleWorkflowId: `authorization-${intent.id}`,
  });
  const paypalRun = runs.find(isPaypalRun);
  expect(paypalRun?.input).toMatchObject({ provider: 'paypal' });
  expect(paypalRun?.result).toMatchObject({
    outcome: 'delivered',
    lifecycleWorkflowId: `authorization-${authorization.id}`,
  });
});

/** Every completed verification run on this task queue, with its input and result. */
async function verificationRuns(): Promise<{ workflowId: string; input: unknown; result: unknown }[]> {
  const runs = [];
  const query = `WorkflowType = '${webhookVerificationWorkflowType}' AND TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Completed'`;
  for await (const run of client.workflow.list({ query })) {
    const handle = client.workflow.getHandle(run.workflowId, run.runId);
    const history = await handle.fetchHistory();
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    const { payloadCodecs, payloadConverter } = client.options.loadedDataConverter;
    let payloads = started?.input?.payloads ?? [];
    for (const codec of [...payloadCodecs].reverse()) payloads = await codec.decode(payloads);
    const input: unknown = payloadConverter.fromPayload(payloads[0]!);
    runs.push({ workflowId: run.workflowId, input, result: await handle.result() });
  }
  return runs;
}
