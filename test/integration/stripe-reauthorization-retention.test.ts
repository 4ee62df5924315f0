import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AxiosInstance } from 'axios';
import type { LifecycleClient } from '../../src/client/lifecycle-client';
import type { Sandbox } from '../../src/sandbox/server';
import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { eventually } from '../helpers/eventually';
import { sandboxCaller, startStripeDoors } from '../helpers/stripe-doors';

// A Stripe reauthorization (a new PaymentIntent, then a cancel of the previous) whose answer was lost and
// which is sent again after Stripe forgot its idempotency keys (the sandbox and the adapter both keep a key
// RETENTION_MS here, Stripe's 24 hours shortened): the retry finds the new intent that already replaces the
// previous and adopts it rather than creating another, so the payer's card keeps one hold, and that hold is
// the lifecycle's current authorization, booked once.

// Longer than an order system's five attempts of one call (about 7.5 s of backoff).
const RETENTION_MS = 10_000;

let sandbox: Sandbox;
let api: AxiosInstance;
let lifecycles: LifecycleClient;
let close: () => Promise<void>;
let atSandbox: ReturnType<typeof sandboxCaller>;

beforeAll(async () => {
  const doors = await startStripeDoors('stripe-reauthorization-retention', ['stripe'], [['stripe']], {
    keyRetentionMs: RETENTION_MS,
  });
  ({ sandbox, lifecycles, close } = doors);
  [api] = doors.apis as [AxiosInstance];
  atSandbox = sandboxCaller(sandbox);
});
afterAll(async () => {
  await close?.();
});
afterEach(async () => {
  await fetch(`${sandbox.url}/sandbox/faults`, { method: 'DELETE' });
});

interface IntentAtStripe {
  id: string;
  status: string;
  amount: number;
  amount_capturable: number;
  customer: string;
  metadata: Record<string, string>;
}

const intentAtStripe = (id: string) => atSandbox<IntentAtStripe>(`/v1/payment_intents/${id}`);

async function startedIntent(amount: number): Promise<string> {
  const { id } = await atSandbox<{ id: string }>('/sandbox/payment_intents', {
    method: 'POST',
    body: JSON.stringify({ amount, currency: 'usd', multicapture: true }),
  });
  expect((await api.post('/v1/lifecycles', { authorizationId: id })).status).toBe(201);
  return id;
}

/** Every intent of the payer (the customer of `intentId`), newest first. */
async function intentsOfPayer(intentId: string): Promise<IntentAtStripe[]> {
  const { customer } = await intentAtStripe(intentId);
  return (await atSandbox<{ data: IntentAtStripe[] }>(`/v1/payment_intents?customer=${customer}&limit=100`))
    .data;
}

/** The holds on the payer's card: its intents that still hold money for capture. */
async function holdsOfPayer(intentId: string): Promise<IntentAtStripe[]> {
  return (await intentsOfPayer(intentId)).filter(
    (intent) => intent.status === 'requires_capture' && intent.amount_capturable > 0,
  );
}

async function arm(fault: { operation: string; mode: string; count: number }): Promise<void> {
  await atSandbox('/sandbox/faults', { method: 'POST', body: JSON.stringify(fault) });
}

async function armedFaults(): Promise<unknown[]> {
  return (await atSandbox<{ faults: unknown[] }>('/sandbox/faults')).faults;
}

function reauthorize(id: string, key: string) {
  return api.post(`/v1/lifecycles/${id}/reauthorize`, {}, { headers: { 'idempotency-key': key } });
}

/**
 * The reauthorization's `operation` (the create, or the cancel of the previous) does its work and its answer
 * is dropped; every read after it fails, so the call gets no answer (503) until the faults are cleared and
 * the keys' retention waited out, and is then sent again under the same key.
 */
async function lostThenRetriedPastRetention(id: string, operation: 'reauthorize' | 'void') {
  const key = randomUUID();
  const firstSent = Date.now();
  // Twice: Stripe's SDK sends a request again at once, under its key, when its connection closed.
  await arm({ operation, mode: 'commit-then-drop', count: 2 });
  const first = reauthorize(id, key);
  // Armed once the first attempt's work is done: its own reads answered, the retries' fail.
  await eventually(armedFaults, (faults) => faults.length === 0, {
    what: 'the reauthorization to do its work and lose the answer',
    intervalMs: 10,
  });
  await arm({ operation: 'get', mode: 'http500', count: 20 });
  expect((await first).status).toBe(503);
  await fetch(`${sandbox.url}/sandbox/faults`, { method: 'DELETE' });
  await sleep(firstSent + RETENTION_MS + 1000 - Date.now());
  return reauthorize(id, key);
}

/** One hold on the card, the lifecycle's current authorization, replacing `id`, booked once. */
async function expectOneHoldAdopted(id: string, renewed: string): Promise<void> {
  const intents = await intentsOfPayer(id);
  expect(intents.filter((intent) => intent.metadata.reauthorizes === id)).toHaveLength(1);
  expect((await holdsOfPayer(id)).map((intent) => intent.id)).toEqual([renewed]);
  expect((await intentAtStripe(id)).status).toBe('canceled');
  const state = (await lifecycles.state(id)) as LifecycleState;
  expect(state).toMatchObject({
    currentAuthorizationId: renewed,
    authorizedAmount: '50.00',
    remainingAmount: '50.00',
  });
  expect(state.reauthorizations).toEqual([
    expect.objectContaining({ fromAuthorizationId: id, toAuthorizationId: renewed }),
  ]);
  const holds = state.ledger.movements.filter((movement) => movement.kind === 'hold');
  expect(holds.map((hold) => [hold.reference, hold.minorUnits])).toEqual([
    [id, '5000'],
    [renewed, '5000'],
  ]);
  expect(state.ledger.discrepancies).toEqual([]);
}

describe('a Stripe reauthorization sent again after Stripe forgot its keys', () => {
  it('whose new intent was made and the previous not canceled: adopts it and cancels the previous', async () => {
    const id = await startedIntent(5000);
    const retried = await lostThenRetriedPastRetention(id, 'reauthorize');
    expect(retried.status).toBe(200);
    await expectOneHoldAdopted(id, (retried.data as { id: string }).id);
  });

  it('whose new intent was made and the previous canceled: adopts it, creating no other', async () => {
    const id = await startedIntent(5000);
    const retried = await lostThenRetriedPastRetention(id, 'void');
    expect(retried.status).toBe(200);
    await expectOneHoldAdopted(id, (retried.data as { id: string }).id);
  });
});
