import { randomUUID } from 'node:crypto';
import type { AxiosInstance } from 'axios';
import type { Client } from '@temporalio/client';
import type { LifecycleClient } from '../../src/client/lifecycle-client';
import type { Authorization, PaymentCapture, Refund } from '../../src/providers/resources';
import type { Sandbox } from '../../src/sandbox/server';
import { lifecycleWorkflowId, type LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { PaymentProviderKey } from '../../src/workflows/search-attributes';
import type { OrdersSide } from '../helpers/nexus-stack';
import { startStripeDoors } from '../helpers/stripe-doors';

// What is Stripe's own in lifecycles started through the doors order systems use: the API (by the `pi_…` id
// alone) and Nexus (with `provider: 'stripe'`), on a worker that hosts Stripe's activities under their own
// names, against the sandbox's Stripe mode: multicapture intents (captures numbered within their charge, the
// hold's end), a reauthorization by a new intent and a cancel of the old, intents that take one capture, a
// provider the deployment does not run. What holds for both providers runs in lifecycle-doors.test.ts.

const HOUR_MS = 60 * 60 * 1000;
let sandbox: Sandbox;
let api: AxiosInstance;
let paypalOnlyApi: AxiosInstance;
let orders: OrdersSide;
let lifecycles: LifecycleClient;
let temporalClient: Client;
let close: () => Promise<void>;

beforeAll(async () => {
  const doors = await startStripeDoors(
    'stripe-doors',
    ['paypal', 'stripe'],
    [['paypal', 'stripe'], ['paypal']],
  );
  ({ sandbox, lifecycles, orders, close, temporal: temporalClient } = doors);
  [api, paypalOnlyApi] = doors.apis as [AxiosInstance, AxiosInstance];
});
afterAll(async () => {
  await close?.();
});

async function heldIntent(amount = 10000, multicapture = true): Promise<string> {
  const response = await fetch(`${sandbox.url}/sandbox/payment_intents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ amount, currency: 'usd', multicapture }),
  });
  return ((await response.json()) as { id: string }).id;
}

async function atStripe<T>(path: string): Promise<T> {
  const response = await fetch(`${sandbox.url}/v1/${path}`, {
    headers: { authorization: 'Bearer sk_test_sandbox' },
  });
  return (await response.json()) as T;
}

const intentAtStripe = (id: string) =>
  atStripe<{ status: string; amount_received: number; latest_charge: string }>(`payment_intents/${id}`);

/** What an order system does to a lifecycle, through one door. */
interface Door {
  start(authorizationId: string): Promise<LifecycleState>;
  capture(
    authorizationId: string,
    request: { amount: string; finalCapture?: boolean },
    key: string,
  ): Promise<PaymentCapture>;
  reauthorize(authorizationId: string, key: string): Promise<Authorization>;
}

function ok<T>(response: { status: number; data: unknown }): T {
  expect(response.status).toBeLessThan(300);
  return response.data as T;
}

const apiDoor: Door = {
  start: async (authorizationId) => {
    const response = await api.post('/v1/lifecycles', { authorizationId });
    expect(response.status).toBe(201);
    return (response.data as { state: LifecycleState }).state;
  },
  capture: async (authorizationId, request, key) =>
    ok(
      await api.post(`/v1/lifecycles/${authorizationId}/capture`, request, {
        headers: { 'idempotency-key': key },
      }),
    ),
  reauthorize: async (authorizationId, key) =>
    ok(
      await api.post(
        `/v1/lifecycles/${authorizationId}/reauthorize`,
        {},
        { headers: { 'idempotency-key': key } },
      ),
    ),
};

async function nexus<T>(operation: string, input: Record<string, unknown>): Promise<T> {
  const run = await orders.run<T>('callPayments', [orders.endpoint, operation, input]);
  expect(run.failure).toBeUndefined();
  return run.result as T;
}

const nexusDoor: Door = {
  start: async (authorizationId) =>
    (await nexus<{ state: LifecycleState }>('startLifecycle', { authorizationId, provider: 'stripe' })).state,
  capture: (authorizationId, request, idempotencyKey) =>
    nexus('capture', { authorizationId, ...request, idempotencyKey }),
  reauthorize: (authorizationId, idempotencyKey) => nexus('reauthorize', { authorizationId, idempotencyKey }),
};

describe.each([
  ['the API, by the pi_ id', apiDoor],
  ['Nexus, with provider stripe', nexusDoor],
])('a Stripe lifecycle started through %s', (_door, door) => {
  it('records its provider, captures twice into one charge (once per key), refunds the charge, closes', async () => {
    const id = await heldIntent();
    const started = await door.start(id);
    expect(started).toMatchObject({ provider: 'stripe', status: 'AUTHORIZED' });
    // The hold ends in 7 days, before the 29-day policy: the policy runs an hour before the hold's end.
    expect(Date.parse(started.expiryPolicyAt)).toBe(Date.parse(started.expirationTime ?? '') - HOUR_MS);
    expect(await lifecycles.state(id)).toMatchObject({ maxCaptures: 50, sharedCaptureIds: true });
    const description = await temporalClient.workflow.getHandle(lifecycleWorkflowId(id)).describe();
    expect(description.typedSearchAttributes.get(PaymentProviderKey)).toBe('stripe');
    expect(description.memo).toMatchObject({ provider: 'stripe' });

    const firstKey = randomUUID();
    const first = await door.capture(id, { amount: '20.00' }, firstKey);
    const retried = await door.capture(id, { amount: '20.00' }, firstKey);
    const second = await door.capture(id, { amount: '30.00' }, randomUUID());
    expect(retried).toEqual(first);
    expect(first.id).not.toBe(second.id);
    expect([first, second]).toMatchObject([
      { status: 'COMPLETED', amount: { value: '20.00' } },
      { status: 'COMPLETED', amount: { value: '30.00' } },
    ]);
    const held = await intentAtStripe(id);
    expect(held).toMatchObject({ status: 'requires_capture', amount_received: 5000 });
    // Both captures went into the intent's one charge; the lifecycle keeps them apart by ids of its own.
    const charge = held.latest_charge;
    expect([first.id, second.id]).toEqual([`${charge}-1`, `${charge}-2`]);

    const refund: Refund = await lifecycles.refund(id, second.id, {
      amount: '10.00',
      idempotencyKey: randomUUID(),
    });
    expect(refund).toMatchObject({ status: 'COMPLETED', amount: { value: '10.00' } });
    expect(await atStripe(`charges/${charge}`)).toMatchObject({
      amount_captured: 5000,
      amount_refunded: 1000,
    });

    // The last capture is final: Stripe releases what is left and the lifecycle ends.
    await door.capture(id, { amount: '10.00', finalCapture: true }, randomUUID());
    expect(await intentAtStripe(id)).toMatchObject({ status: 'succeeded', amount_received: 6000 });
    const state = (await lifecycles.state(id)) as LifecycleState;
    expect(state).toMatchObject({
      status: 'PARTIALLY_REFUNDED',
      capturedAmount: '60.00',
      remainingAmount: '0.00',
      refundedAmount: '10.00',
    });
    expect(state.captures.map((capture) => capture.id)).toEqual([first.id, second.id, `${charge}-3`]);
  });

  it('reauthorizes by a new intent, cancels the old one, then captures on the new', async () => {
    const id = await heldIntent(5000);
    await door.start(id);
    const renewed = await door.reauthorize(id, randomUUID());
    expect(renewed.id).toMatch(/^pi_/);
    expect(renewed.id).not.toBe(id);
    expect((await intentAtStripe(id)).status).toBe('canceled');
    expect((await intentAtStripe(renewed.id)).status).toBe('requires_capture');

    const capture = await door.capture(id, { amount: '50.00' }, randomUUID());
    expect(capture).toMatchObject({ status: 'COMPLETED', amount: { value: '50.00' } });
    expect(await intentAtStripe(renewed.id)).toMatchObject({ status: 'succeeded', amount_received: 5000 });
    const state = (await lifecycles.state(id)) as LifecycleState;
    expect(state).toMatchObject({ status: 'CAPTURED', currentAuthorizationId: renewed.id });
    // The new intent is a new hold: the expiry policy follows its end.
    expect(Date.parse(state.expiryPolicyAt)).toBe(Date.parse(renewed.expiration_time ?? '') - HOUR_MS);
  });
});

describe('multicapture when Stripe commits a capture and drops the answer', () => {
  it('captures once per key, and numbers the captures of the charge as they were made', async () => {
    const id = await heldIntent();
    await apiDoor.start(id);
    const armed = await fetch(`${sandbox.url}/sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operation: 'capture', mode: 'commit-then-drop', count: 2 }),
    });
    expect(armed.status).toBe(201);
    const first = await apiDoor.capture(id, { amount: '20.00' }, randomUUID());
    const second = await apiDoor.capture(id, { amount: '30.00' }, randomUUID());
    const { latest_charge: charge, amount_received } = await intentAtStripe(id);
    expect(amount_received).toBe(5000);
    const faults = (await (await fetch(`${sandbox.url}/sandbox/faults`)).json()) as { faults: unknown[] };
    expect(faults.faults).toEqual([]);
    expect([first.id, second.id]).toEqual([`${charge}-1`, `${charge}-2`]);
    expect(await lifecycles.state(id)).toMatchObject({ capturedAmount: '50.00', remainingAmount: '50.00' });
  });
});

describe('an intent whose card does not allow multicapture, on an account that asks for it', () => {
  it('takes one capture: a partial one is final and releases the rest, the next is refused before Stripe', async () => {
    const id = await heldIntent(10000, false);
    await apiDoor.start(id);
    expect(await lifecycles.state(id)).toMatchObject({ maxCaptures: 1 });
    expect(await lifecycles.state(id)).not.toHaveProperty('sharedCaptureIds');
    const capture = await apiDoor.capture(id, { amount: '20.00' }, randomUUID());
    expect(capture).toMatchObject({ status: 'COMPLETED', final_capture: true });
    expect(capture.id).toMatch(/^ch_[A-Za-z0-9]+$/);
    expect(await intentAtStripe(id)).toMatchObject({ status: 'succeeded', amount_received: 2000 });
    // A fault armed on Stripe's capture stays armed: the refusal never reached Stripe.
    const armed = await fetch(`${sandbox.url}/sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operation: 'capture', mode: 'http500', count: 1 }),
    });
    expect(armed.status).toBe(201);
    const second = await api.post(
      `/v1/lifecycles/${id}/capture`,
      { amount: '10.00' },
      { headers: { 'idempotency-key': randomUUID() } },
    );
    expect(second.status).toBe(409);
    const faults = (await (await fetch(`${sandbox.url}/sandbox/faults`)).json()) as { faults: unknown[] };
    expect(faults.faults).toHaveLength(1);
    await fetch(`${sandbox.url}/sandbox/faults`, { method: 'DELETE' });
    expect(await intentAtStripe(id)).toMatchObject({ status: 'succeeded', amount_received: 2000 });
  });

  it('keeps one capture across a reauthorization: the new intent asks for no multicapture', async () => {
    const id = await heldIntent(10000, false);
    await apiDoor.start(id);
    const renewed = await apiDoor.reauthorize(id, randomUUID());
    const options = await atStripe<{ payment_method_options: unknown }>(`payment_intents/${renewed.id}`);
    expect(options.payment_method_options).toEqual({ card: { request_multicapture: 'never' } });
    // A partial capture is final: no rest stays held for the dashboard to capture unseen.
    const capture = await apiDoor.capture(id, { amount: '20.00' }, randomUUID());
    expect(capture).toMatchObject({ status: 'COMPLETED', final_capture: true });
    expect(await intentAtStripe(renewed.id)).toMatchObject({ status: 'succeeded', amount_received: 2000 });
    expect(await lifecycles.state(id)).toMatchObject({ status: 'CAPTURED', remainingAmount: '0.00' });
  });
});

describe('a start on a provider this deployment does not run', () => {
  it('is a 400 naming the provider field, for a pi_ id and for an explicit provider', async () => {
    const id = await heldIntent();
    for (const body of [{ authorizationId: id }, { authorizationId: 'ANY-ID', provider: 'stripe' }]) {
      const response = await paypalOnlyApi.post('/v1/lifecycles', body);
      expect(response.status).toBe(400);
      expect(JSON.stringify(response.data)).toContain('provider: stripe is not configured');
    }
    const unknown = await api.post('/v1/lifecycles', { authorizationId: id, provider: 'adyen' });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.data)).toContain('provider');
    expect(await lifecycles.state(id)).toBeNull();
  });

  it('is refused over Nexus too, naming the provider field', async () => {
    const id = await heldIntent();
    const run = await orders.run('callPayments', [
      orders.endpoint,
      'startLifecycle',
      { authorizationId: id, provider: 'adyen' },
    ]);
    expect(run.failure).toBeDefined();
    expect(causeMessages(run.failure)).toMatch(/provider: /);
    expect(await lifecycles.state(id)).toBeNull();
  });
});

/** Every message down the cause chain. */
function causeMessages(error: unknown): string {
  const messages: string[] = [];
  for (let cause = error; cause instanceof Error; cause = cause.cause) messages.push(cause.message);
  return messages.join(' <- ');
}
