import { randomUUID } from 'node:crypto';
import type { AxiosInstance } from 'axios';
import { createProviderActivities } from '../../src/activities/payments';
import { stripeEndpoint } from '../../src/providers/stripe/client';
import { stripeProvider } from '../../src/providers/stripe/provider';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import { startWorkerAndApi } from '../helpers/lifecycle-stack';

// A lifecycle over Stripe through the port alone: the worker hosts the Stripe adapter's activities, the
// sandbox answers as Stripe, intents without multicapture (one capture each; see stripe-lifecycle-doors for
// multicapture).

let sandbox: Sandbox;
let api: AxiosInstance;
let close: () => Promise<void>;
const key = () => ({ headers: { 'idempotency-key': randomUUID() } });

beforeAll(async () => {
  sandbox = await startSandbox({ mode: 'stripe', logger: false });
  const provider = stripeProvider({
    apiKey: 'sk_test_sandbox',
    ...stripeEndpoint(sandbox.url),
    timeoutMs: 2000,
    webhookSecrets: ['whsec_sandbox'],
  });
  const started = await startWorkerAndApi('stripe-lifecycle', createProviderActivities(provider));
  api = started.api;
  close = async () => {
    await started.close();
    await sandbox.close();
  };
});
afterAll(async () => {
  await close();
});

async function heldIntent(amount = 5000): Promise<string> {
  const response = await fetch(`${sandbox.url}/sandbox/payment_intents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ amount, currency: 'usd' }),
  });
  return ((await response.json()) as { id: string }).id;
}

async function arm(fault: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${sandbox.url}/sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fault),
  });
  expect(response.status).toBe(201);
}

async function intentAtStripe(id: string) {
  const response = await fetch(`${sandbox.url}/v1/payment_intents/${id}`, {
    headers: { authorization: 'Bearer sk_test_sandbox' },
  });
  return (await response.json()) as { status: string; amount_received: number };
}

describe('a lifecycle over Stripe', () => {
  it('starts on a PaymentIntent, captures once per key, refunds the charge', async () => {
    const id = await heldIntent();
    const start = await api.post('/v1/lifecycles', { authorizationId: id });
    expect(start.status).toBe(201);
    const capture = await api.post(`/v1/lifecycles/${id}/capture`, { amount: '50.00' }, key());
    expect(capture.status).toBe(200);
    expect(capture.data).toMatchObject({ status: 'COMPLETED', amount: { value: '50.00' } });
    expect(await intentAtStripe(id)).toMatchObject({ status: 'succeeded', amount_received: 5000 });

    const refund = await api.post(
      `/v1/lifecycles/${id}/captures/${capture.data.id as string}/refund`,
      { amount: '20.00' },
      key(),
    );
    expect(refund.status).toBe(200);
    expect(refund.data).toMatchObject({ status: 'COMPLETED', amount: { value: '20.00' } });
    const state = (await api.get(`/v1/lifecycles/${id}`)).data as Record<string, unknown>;
    expect(state).toMatchObject({ status: 'PARTIALLY_REFUNDED' });
  });

  it('captures once when Stripe commits captures and drops the answers, and after 500s', async () => {
    const id = await heldIntent();
    expect((await api.post('/v1/lifecycles', { authorizationId: id })).status).toBe(201);
    await arm({ operation: 'capture', mode: 'commit-then-drop', count: 3 });
    await arm({ operation: 'capture', mode: 'http500', count: 2 });
    const capture = await api.post(`/v1/lifecycles/${id}/capture`, { amount: '50.00' }, key());
    expect(capture.status).toBe(200);
    expect(capture.data).toMatchObject({ status: 'COMPLETED', amount: { value: '50.00' } });
    expect(await intentAtStripe(id)).toMatchObject({ status: 'succeeded', amount_received: 5000 });
    const faults = (await (await fetch(`${sandbox.url}/sandbox/faults`)).json()) as { faults: unknown[] };
    expect(faults.faults).toEqual([]);
  });

  it('reauthorizes by a new intent, cancels the old one, and captures on the new', async () => {
    const id = await heldIntent();
    expect((await api.post('/v1/lifecycles', { authorizationId: id })).status).toBe(201);
    const reauthorized = await api.post(`/v1/lifecycles/${id}/reauthorize`, {}, key());
    expect(reauthorized.status).toBe(200);
    const renewed = await api.get(`/v1/lifecycles/${id}`);
    const current = (renewed.data as { currentAuthorizationId: string }).currentAuthorizationId;
    expect(current).not.toBe(id);
    expect((await intentAtStripe(id)).status).toBe('canceled');

    const capture = await api.post(`/v1/lifecycles/${id}/capture`, {}, key());
    expect(capture.status).toBe(200);
    expect(await intentAtStripe(current)).toMatchObject({ status: 'succeeded', amount_received: 5000 });
  });

  it('refuses a second capture of an intent without multicapture before Stripe is asked', async () => {
    const id = await heldIntent();
    expect((await api.post('/v1/lifecycles', { authorizationId: id })).status).toBe(201);
    const first = await api.post(`/v1/lifecycles/${id}/capture`, { amount: '20.00' }, key());
    expect(first.status).toBe(200);
    // A partial capture of such an intent releases the rest: Stripe and the lifecycle agree.
    expect(await intentAtStripe(id)).toMatchObject({ status: 'succeeded', amount_received: 2000 });
    expect((await api.get(`/v1/lifecycles/${id}`)).data).toMatchObject({
      status: 'CAPTURED',
      remainingAmount: '0.00',
    });

    // A fault armed on Stripe's capture stays armed: the refusal never reached Stripe.
    await arm({ operation: 'capture', mode: 'http500', count: 1 });
    const second = await api.post(`/v1/lifecycles/${id}/capture`, { amount: '10.00' }, key());
    expect(second.status).toBe(409);
    const faults = (await (await fetch(`${sandbox.url}/sandbox/faults`)).json()) as { faults: unknown[] };
    expect(faults.faults).toHaveLength(1);
    await fetch(`${sandbox.url}/sandbox/faults`, { method: 'DELETE' });
    expect(await intentAtStripe(id)).toMatchObject({ status: 'succeeded', amount_received: 2000 });
  });
});
