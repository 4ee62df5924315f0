import { randomUUID } from 'node:crypto';
import type { AxiosInstance } from 'axios';
import type { LifecycleClient } from '../../src/client/lifecycle-client';
import type { Sandbox } from '../../src/sandbox/server';
import { eventually } from '../helpers/eventually';
import type { OrdersSide } from '../helpers/nexus-stack';
import { lifecycleDefaults, startStripeDoors } from '../helpers/stripe-doors';

// No hold beyond what the payer gave: a reauthorization asks for no more than what remains of the current
// hold, on every door, before any provider call; on Stripe, where a reauthorization is a new PaymentIntent and
// a cancel of the old, the payer's card never keeps two holds, and only a hold that can still be captured is
// adopted. Over the real API, worker, Nexus and the sandbox's Stripe mode.

const defaults = lifecycleDefaults;

let sandbox: Sandbox;
let api: AxiosInstance;
let orders: OrdersSide;
let lifecycles: LifecycleClient;
let close: () => Promise<void>;

beforeAll(async () => {
  const doors = await startStripeDoors('reauthorization-hold', ['stripe'], [['stripe']]);
  ({ sandbox, lifecycles, orders, close } = doors);
  [api] = doors.apis as [AxiosInstance];
});
afterAll(async () => {
  await close?.();
});
afterEach(async () => {
  await fetch(`${sandbox.url}/sandbox/faults`, { method: 'DELETE' });
});

async function sandboxPost<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(`${sandbox.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBeLessThan(300);
  return (await response.json()) as T;
}

const heldIntent = async (amount: number, multicapture = true) =>
  (await sandboxPost<{ id: string }>('/sandbox/payment_intents', { amount, currency: 'usd', multicapture }))
    .id;

interface IntentAtStripe {
  id: string;
  status: string;
  amount: number;
  amount_capturable: number;
  amount_received: number;
  customer: string;
}

async function atStripe<T>(path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(`${sandbox.url}/v1/${path}`, {
    ...init,
    headers: { authorization: 'Bearer sk_test_sandbox', ...init.headers },
  });
  return (await response.json()) as T;
}

const intentAtStripe = (id: string) => atStripe<IntentAtStripe>(`payment_intents/${id}`);

/** The holds on the payer's card: the customer's intents that still hold money for capture. */
async function holdsOfPayer(intentId: string): Promise<IntentAtStripe[]> {
  const { customer } = await intentAtStripe(intentId);
  const list = await atStripe<{ data: IntentAtStripe[] }>(`payment_intents?customer=${customer}`);
  return list.data.filter((intent) => intent.status === 'requires_capture' && intent.amount_capturable > 0);
}

/** A fault on Stripe's PaymentIntent create, which only a reauthorization calls: armed, it shows none was made. */
async function armCreateFault(): Promise<void> {
  await sandboxPost('/sandbox/faults', { operation: 'reauthorize', mode: 'http500', count: 1 });
}

async function armedFaults(): Promise<unknown[]> {
  return ((await (await fetch(`${sandbox.url}/sandbox/faults`)).json()) as { faults: unknown[] }).faults;
}

/** A refusal, as each door reports it: its HTTP status (or none), and its message. */
interface Refusal {
  status?: number;
  message: string;
}

interface Door {
  start(authorizationId: string): Promise<void>;
  reauthorize(authorizationId: string, amount: string): Promise<Refusal | undefined>;
}

const httpDoor: Door = {
  start: async (authorizationId) => {
    expect((await api.post('/v1/lifecycles', { authorizationId })).status).toBe(201);
  },
  reauthorize: async (authorizationId, amount) => {
    const response = await api.post(
      `/v1/lifecycles/${authorizationId}/reauthorize`,
      { amount },
      { headers: { 'idempotency-key': randomUUID() } },
    );
    if (response.status < 300) return undefined;
    const { error } = response.data as { error: { message: string } };
    return { status: response.status, message: error.message };
  },
};

const clientDoor: Door = {
  start: async (authorizationId) => {
    await lifecycles.start({ authorizationId, ...defaults });
  },
  reauthorize: async (authorizationId, amount) => {
    try {
      await lifecycles.reauthorize(authorizationId, { amount, idempotencyKey: randomUUID() });
      return undefined;
    } catch (error) {
      return { message: messages(error) };
    }
  },
};

const nexusDoor: Door = {
  start: async (authorizationId) => {
    const run = await orders.run('callPayments', [
      orders.endpoint,
      'startLifecycle',
      { authorizationId, provider: 'stripe' },
    ]);
    expect(run.failure).toBeUndefined();
  },
  reauthorize: async (authorizationId, amount) => {
    const run = await orders.run('callPayments', [
      orders.endpoint,
      'reauthorize',
      { authorizationId, amount, idempotencyKey: randomUUID() },
    ]);
    return run.failure && { message: messages(run.failure) };
  },
};

describe.each([
  ['HTTP', httpDoor],
  ['the LifecycleClient', clientDoor],
  ['Nexus', nexusDoor],
])('a reauthorization through %s', (_door, door) => {
  it('of more than what remains of the hold is refused before Stripe, naming the amount and what remains', async () => {
    const id = await heldIntent(1000);
    await door.start(id);
    await armCreateFault();
    const refusal = await door.reauthorize(id, '5000.00');
    expect(refusal).toBeDefined();
    if (refusal?.status !== undefined) expect(refusal.status).toBe(409);
    expect(refusal?.message).toContain('5000.00 USD is more than the 10.00 that remains of the current hold');
    // No new PaymentIntent: the fault armed on Stripe's create is still armed, the payer has one hold.
    expect(await armedFaults()).toHaveLength(1);
    expect((await holdsOfPayer(id)).map((intent) => intent.id)).toEqual([id]);
    expect(await lifecycles.state(id)).toMatchObject({ remainingAmount: '10.00', reauthorizations: [] });
  });
});

describe('a Stripe reauthorization by a new PaymentIntent', () => {
  it('takes no new hold while the old one is partly captured, and says why', async () => {
    const id = await heldIntent(10000);
    await httpDoor.start(id);
    const captured = await api.post(
      `/v1/lifecycles/${id}/capture`,
      { amount: '20.00', finalCapture: false },
      { headers: { 'idempotency-key': randomUUID() } },
    );
    expect(captured.status).toBe(200);
    await armCreateFault();
    const response = await api.post(
      `/v1/lifecycles/${id}/reauthorize`,
      {},
      { headers: { 'idempotency-key': randomUUID() } },
    );
    expect(response.status).toBe(422);
    expect(JSON.stringify(response.data)).toContain('Stripe cannot cancel it');
    expect(await armedFaults()).toHaveLength(1);
    expect((await holdsOfPayer(id)).map((intent) => intent.id)).toEqual([id]);
    expect(await lifecycles.state(id)).toMatchObject({
      currentAuthorizationId: id,
      remainingAmount: '80.00',
    });
  });

  it('leaves one hold when the answer to the new intent is lost and the call is sent again', async () => {
    const id = await heldIntent(5000);
    await httpDoor.start(id);
    await sandboxPost('/sandbox/faults', { operation: 'reauthorize', mode: 'commit-then-drop', count: 1 });
    const response = await api.post(
      `/v1/lifecycles/${id}/reauthorize`,
      {},
      { headers: { 'idempotency-key': randomUUID() } },
    );
    expect(response.status).toBe(200);
    const renewed = (response.data as { id: string }).id;
    expect(await armedFaults()).toEqual([]);
    expect((await intentAtStripe(id)).status).toBe('canceled');
    expect((await holdsOfPayer(id)).map((intent) => intent.id)).toEqual([renewed]);
  });

  it('skips, on the timer, a hold it cannot replace, and records why', async () => {
    const id = await heldIntent(10000);
    await lifecycles.start({ authorizationId: id, ...defaults, reauthorizeAfter: '3 seconds' });
    await lifecycles.capture(id, { amount: '20.00', finalCapture: false, idempotencyKey: randomUUID() });
    const state = await eventually(
      () => lifecycles.state(id),
      (read) => read?.reauthorizationFailure !== undefined,
      { what: 'the scheduled reauthorization to fail' },
    );
    expect(state?.reauthorizationFailure?.reason).toBe('authorization_not_replaceable');
    expect(state).toMatchObject({ currentAuthorizationId: id, remainingAmount: '80.00' });
    expect(state?.reauthorizeAt).toBeUndefined();
    expect((await holdsOfPayer(id)).map((intent) => intent.id)).toEqual([id]);
    // GET shows it as docs/lifecycle.md promises.
    const shown = await api.get(`/v1/lifecycles/${id}`);
    expect(shown.data).toMatchObject({
      reauthorizationFailure: { reason: 'authorization_not_replaceable', at: expect.any(String) },
    });
  });
});

describe('a Stripe PaymentIntent adopted by a start', () => {
  it('is refused when it succeeded after a partial capture: nothing of it can still be captured', async () => {
    const id = await heldIntent(10000, false);
    await atStripe(`payment_intents/${id}/capture`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'amount_to_capture=2000',
    });
    expect(await intentAtStripe(id)).toMatchObject({ status: 'succeeded', amount_capturable: 0 });
    const response = await api.post('/v1/lifecycles', { authorizationId: id });
    expect(response.status).toBe(409);
    expect(JSON.stringify(response.data)).toContain('it holds nothing to manage');
  });
});

/** Every message down the cause chain. */
function messages(error: unknown): string {
  const all: string[] = [];
  for (let cause = error; cause instanceof Error; cause = cause.cause) all.push(cause.message);
  return all.join(' <- ');
}
