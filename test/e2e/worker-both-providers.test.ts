import { randomUUID } from 'node:crypto';
import axios from 'axios';
import type { Client } from '@temporalio/client';
import { LifecycleClient } from '../../src/client/lifecycle-client';
import type { ServiceProcess } from '../../src/dev/child-process';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import { createSandboxAuthorization } from '../helpers/lifecycle-stack';
import { connectClient, startWorkerProcess, uniqueTaskQueue } from '../helpers/temporal';

// The service's own worker process with PAYMENTS_PROVIDER=paypal,stripe: one task queue, a PayPal lifecycle
// and a Stripe lifecycle side by side, each calling its own provider.

let paypal: Sandbox;
let stripe: Sandbox;
let client: Client;
let closeClient: () => Promise<void>;
let worker: ServiceProcess | undefined;
let lifecycles: LifecycleClient;
const taskQueue = uniqueTaskQueue('both-providers');

beforeAll(async () => {
  paypal = await startSandbox({ logger: false });
  stripe = await startSandbox({ mode: 'stripe', logger: false });
  ({ client, close: closeClient } = await connectClient());
  lifecycles = new LifecycleClient(client, taskQueue);
  worker = await startWorkerProcess(taskQueue, paypal.url, {
    PAYMENTS_PROVIDER: 'paypal,stripe',
    STRIPE_BASE_URL: stripe.url,
    STRIPE_MULTICAPTURE: 'true',
  });
});

afterAll(async () => {
  await worker?.stop();
  await closeClient?.();
  await paypal?.close();
  await stripe?.close();
});

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
  expect(paypalStart.state).not.toHaveProperty('provider');
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
});
