import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AxiosInstance } from 'axios';
import type { LifecycleClient } from '../../src/client/lifecycle-client';
import type { PaymentCapture, Refund } from '../../src/providers/resources';
import type { Sandbox } from '../../src/sandbox/server';
import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { sandboxCaller, startStripeDoors } from '../helpers/stripe-doors';

// A keyed capture or refund whose answer was lost, retried after Stripe forgot its idempotency key (the
// sandbox and the adapter both keep a key RETENTION_MS here, Stripe's 24 hours shortened): the retry reads
// what the first call did before it sends anything, so money moves once, and the lifecycle's ledger says
// what the sandbox's books say.

// Longer than an order system's five attempts of one call (about 7.5 s of backoff), so that the sandbox
// keeps the key through them.
const RETENTION_MS = 10_000;

let sandbox: Sandbox;
let api: AxiosInstance;
let lifecycles: LifecycleClient;
let close: () => Promise<void>;
let atSandbox: ReturnType<typeof sandboxCaller>;

beforeAll(async () => {
  const doors = await startStripeDoors('stripe-key-retention', ['stripe'], [['stripe']], {
    keyRetentionMs: RETENTION_MS,
  });
  ({ sandbox, lifecycles, close } = doors);
  [api] = doors.apis as [AxiosInstance];
  atSandbox = sandboxCaller(sandbox);
});
afterAll(async () => {
  await close?.();
});

async function startedIntent(amount: number): Promise<string> {
  const { id } = await atSandbox<{ id: string }>('/sandbox/payment_intents', {
    method: 'POST',
    body: JSON.stringify({ amount, currency: 'usd', multicapture: true }),
  });
  expect((await api.post('/v1/lifecycles', { authorizationId: id })).status).toBe(201);
  return id;
}

/**
 * The next call of `operation` does its work and drops the answer ('done'), or fails with a 500 ('not done');
 * the calls after it fail with a 500 until the faults are cleared (failedThenPastRetention).
 */
async function loseTheAnswer(operation: 'capture' | 'refund', work: 'done' | 'not done'): Promise<void> {
  const faults = [
    ...(work === 'done' ? [{ operation, mode: 'commit-then-drop', count: 1 }] : []),
    { operation, mode: 'http500', count: 20 },
  ];
  for (const fault of faults) {
    await atSandbox('/sandbox/faults', { method: 'POST', body: JSON.stringify(fault) });
  }
}

const intentAtStripe = (id: string) =>
  atSandbox<{ amount_received: number; latest_charge: string }>(`/v1/payment_intents/${id}`);

/** The request gets no answer (503); the faults are cleared and the key's retention waited out. */
async function failedThenPastRetention(send: () => Promise<{ status: number }>): Promise<void> {
  const firstSent = Date.now();
  expect((await send()).status).toBe(503);
  await fetch(`${sandbox.url}/sandbox/faults`, { method: 'DELETE' });
  await sleep(firstSent + RETENTION_MS + 1000 - Date.now());
}

function capture(id: string, amount: string, key: string) {
  return api.post(`/v1/lifecycles/${id}/capture`, { amount }, { headers: { 'idempotency-key': key } });
}

function refund(id: string, captureId: string, amount: string, key: string) {
  return api.post(
    `/v1/lifecycles/${id}/captures/${captureId}/refund`,
    { amount },
    { headers: { 'idempotency-key': key } },
  );
}

describe('a Stripe capture retried after Stripe forgot its key', () => {
  it('whose first call captured: is found at Stripe, not captured again, and booked once', async () => {
    const id = await startedIntent(10000);
    const key = randomUUID();
    await loseTheAnswer('capture', 'done');
    await failedThenPastRetention(() => capture(id, '20.00', key));

    const retried = await capture(id, '20.00', key);
    expect(retried.status).toBe(200);
    const { latest_charge: charge, amount_received } = await intentAtStripe(id);
    expect(amount_received).toBe(2000);
    expect(retried.data as PaymentCapture).toMatchObject({ id: `${charge}-1`, amount: { value: '20.00' } });
    const state = (await lifecycles.state(id)) as LifecycleState;
    expect(state).toMatchObject({ capturedAmount: '20.00', remainingAmount: '80.00', pendingAttempts: [] });
    expect(state.captures).toEqual([
      expect.objectContaining({ id: `${charge}-1`, idempotencyKey: `${id}/capture/${key}` }),
    ]);
  });

  it('whose first call did nothing: is sent again under a fresh key and captures once', async () => {
    const id = await startedIntent(10000);
    const key = randomUUID();
    await loseTheAnswer('capture', 'not done');
    await failedThenPastRetention(() => capture(id, '20.00', key));
    expect((await intentAtStripe(id)).amount_received).toBe(0);

    const retried = await capture(id, '20.00', key);
    expect(retried.status).toBe(200);
    expect((await intentAtStripe(id)).amount_received).toBe(2000);
    const state = (await lifecycles.state(id)) as LifecycleState;
    expect(state).toMatchObject({ capturedAmount: '20.00', pendingAttempts: [] });
    expect(state.captures).toEqual([
      expect.objectContaining({ idempotencyKey: `${id}/capture/${key}/resend-1` }),
    ]);
    // A retry within the answer's retention gets the same answer, and Stripe nothing more.
    expect((await capture(id, '20.00', key)).data).toEqual(retried.data);
    expect((await intentAtStripe(id)).amount_received).toBe(2000);
  });
});

describe('a Stripe refund retried after Stripe forgot its key', () => {
  it('whose first call refunded: is found in the charge’s refunds and booked once', async () => {
    const id = await startedIntent(10000);
    const captured = await capture(id, '50.00', randomUUID());
    expect(captured.status).toBe(200);
    const captureId = (captured.data as PaymentCapture).id;
    const key = randomUUID();
    await loseTheAnswer('refund', 'done');
    await failedThenPastRetention(() => refund(id, captureId, '10.00', key));

    const retried = await refund(id, captureId, '10.00', key);
    expect(retried.status).toBe(200);
    const { latest_charge: charge } = await intentAtStripe(id);
    const refunds = await atSandbox<{ data: { id: string; amount: number }[] }>(
      `/v1/refunds?charge=${charge}`,
    );
    expect(refunds.data).toEqual([
      expect.objectContaining({ id: (retried.data as Refund).id, amount: 1000 }),
    ]);
    expect(await atSandbox(`/v1/charges/${charge}`)).toMatchObject({
      amount_captured: 5000,
      amount_refunded: 1000,
    });
    expect(await lifecycles.state(id)).toMatchObject({ refundedAmount: '10.00', pendingAttempts: [] });
  });
});
