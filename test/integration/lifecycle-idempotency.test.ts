import { randomUUID } from 'node:crypto';
import { IdempotencyKeyReusedError } from '../../src/client/lifecycle-client';
import { eventually } from '../helpers/eventually';
import { sandboxPaymentsClient, useLifecycleStack } from '../helpers/lifecycle-stack';
import {
  lifecycleWorkflowId,
  paymentEventSignal,
  stateQuery,
} from '../../src/workflows/lifecycle/definitions';

// Payment-grade idempotency under the caller's Idempotency-Key, over real HTTP, on the dev server and sandbox.

const stack = useLifecycleStack();

function capture(authorizationId: string, key: string, body: Record<string, unknown> = {}) {
  return stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, body, {
    headers: { 'idempotency-key': key },
  });
}

async function armedFaults() {
  return (await stack.provider.get('/sandbox/faults')).data.faults as Array<{ mode: string }>;
}

function lifecycleState(authorizationId: string) {
  return stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId)).query(stateQuery);
}

/** A final capture's capture.completed event, as the webhook intake signals it. */
function signalCaptureCompleted(authorizationId: string, captureId: string, value: string) {
  return stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId)).signal(paymentEventSignal, {
    id: `WH-${randomUUID()}`,
    eventType: 'capture.completed',
    authorizationId,
    captureId,
    amount: { currency_code: 'USD', value },
    finalCapture: true,
  });
}

describe('an Idempotency-Key', () => {
  it('reused with another amount is refused with 422 naming the field; "10" and "10.00" are the same', async () => {
    const authorizationId = await stack.startLifecycle();
    const key = randomUUID();
    const first = await capture(authorizationId, key, { amount: '10.00' });
    expect(first.status).toBe(200);

    const other = await capture(authorizationId, key, { amount: '25.00' });
    expect(other.status).toBe(422);
    expect(other.data.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(other.data.error.message).toMatch(/amount "10.00"; this request has amount "25.00"/);

    const sameAmount = await capture(authorizationId, key, { amount: '10' });
    expect(sameAmount.status).toBe(200);
    expect(sameAmount.data.id).toBe(first.data.id);

    const extraField = await capture(authorizationId, key, { amount: '10.00', invoiceId: 'INV-1' });
    expect(extraField.status).toBe(422);
    expect(extraField.data.error.message).toMatch(/invoiceId/);
    expect(await stack.capturesAtProvider(authorizationId)).toHaveLength(1);
  });

  it('reused for another operation is refused with 422', async () => {
    const authorizationId = await stack.startLifecycle();
    const key = randomUUID();
    expect((await capture(authorizationId, key, { amount: '5.00' })).status).toBe(200);
    const voided = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/void`,
      {},
      {
        headers: { 'idempotency-key': key },
      },
    );
    expect(voided.status).toBe(422);
    expect(voided.data.error.message).toMatch(/first used for a capture, not a void/);
  });

  it('reused on an open lifecycle throws IdempotencyKeyReusedError to LifecycleClient callers, as on a closed one', async () => {
    const authorizationId = await stack.startLifecycle();
    const idempotencyKey = randomUUID();
    await stack.lifecycles.capture(authorizationId, { amount: '10.00', idempotencyKey });
    expect((await lifecycleState(authorizationId))?.status).toBe('PARTIALLY_CAPTURED');

    const reused = await stack.lifecycles
      .capture(authorizationId, { amount: '25.00', idempotencyKey })
      .catch((error: unknown) => error);
    expect(reused).toBeInstanceOf(IdempotencyKeyReusedError);
    expect((reused as Error).message).toMatch(/amount "10.00"; this request has amount "25.00"/);
    expect(await stack.capturesAtProvider(authorizationId)).toHaveLength(1);
  });

  it('sent again while its first request runs waits for that answer: one provider call', async () => {
    const authorizationId = await stack.startLifecycle();
    // The first provider call stalls; a second call would meet the armed 500 and use it up.
    await stack.provider.post('/sandbox/faults', { operation: 'capture', mode: 'stall', stallMs: 1500 });
    await stack.provider.post('/sandbox/faults', { operation: 'capture', mode: 'http500', count: 1 });
    const key = randomUUID();
    const first = capture(authorizationId, key, { amount: '20.00' });
    await eventually(armedFaults, (armed) => armed.length === 1, {
      what: 'the first call to take up the stall at the provider',
    });
    const [one, two] = await Promise.all([first, capture(authorizationId, key, { amount: '20.00' })]);
    expect(one.status).toBe(200);
    expect(two.status).toBe(200);
    expect(two.data.id).toBe(one.data.id);
    expect((await armedFaults()).map((fault) => fault.mode)).toEqual(['http500']);
    expect(await stack.capturesAtProvider(authorizationId)).toHaveLength(1);
  });

  it('whose attempt failed (503) reaches the provider again on retry and captures once', async () => {
    const authorizationId = await stack.startLifecycle();
    // Five 500s outlast the attempts an order system's call makes.
    await stack.provider.post('/sandbox/faults', { operation: 'capture', mode: 'http500', count: 5 });
    const key = randomUUID();
    const failed = await capture(authorizationId, key, { amount: '30.00' });
    expect(failed.status).toBe(503);

    const retried = await capture(authorizationId, key, { amount: '30.00' });
    expect(retried.status).toBe(200);
    expect(retried.data.amount.value).toBe('30.00');
    expect(await stack.capturesAtProvider(authorizationId)).toEqual([
      expect.objectContaining({ id: retried.data.id }),
    ]);
  });

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'named %s behaves as any other key',
    async (key) => {
      const authorizationId = await stack.startLifecycle();
      const first = await capture(authorizationId, key, { amount: '1.00' });
      expect(first.status).toBe(200);
      expect(first.data.status).toBe('COMPLETED');
      const again = await capture(authorizationId, key, { amount: '1.00' });
      expect(again.data.id).toBe(first.data.id);
      expect(await stack.capturesAtProvider(authorizationId)).toHaveLength(1);
    },
  );

  it.each([
    ['60.00', { amount: '60.00' }],
    ['all that remains', {}],
  ])(
    'of a capture (%s) whose answer was lost, learnt first from the webhook, gets it on retry; no other key does',
    async (_what, body) => {
      const authorizationId = await stack.startLifecycle('60.00');
      const key = randomUUID();
      // The provider captures on the first attempt and drops every answer, replays included.
      await stack.provider.post('/sandbox/faults', {
        operation: 'capture',
        mode: 'commit-then-drop',
        count: 5,
      });
      expect((await capture(authorizationId, key, body)).status).toBe(503);
      const atProvider = await stack.capturesAtProvider(authorizationId);
      expect(atProvider).toHaveLength(1);
      const made = atProvider[0] as { id: string };
      // The provider's webhook for it arrives before the retry: the lifecycle is CAPTURED.
      await signalCaptureCompleted(authorizationId, made.id, '60.00');
      expect((await lifecycleState(authorizationId))?.status).toBe('CAPTURED');

      // Another key is refused: nothing remains to capture, and the webhook's capture is not its own.
      const other = await capture(authorizationId, randomUUID(), body);
      expect(other.status).toBe(409);

      const retried = await capture(authorizationId, key, body);
      expect(retried.status).toBe(200);
      expect(retried.data.id).toBe(made.id);
      expect(await stack.capturesAtProvider(authorizationId)).toHaveLength(1);
      const state = await lifecycleState(authorizationId);
      expect(state?.captures).toEqual([
        expect.objectContaining({ id: made.id, idempotencyKey: `${authorizationId}/capture/${key}` }),
      ]);
      expect(state?.pendingAttempts).toEqual([]);
    },
  );

  it("never claims a capture made in the provider's dashboard: a CAPTURED lifecycle captures no more", async () => {
    const authorizationId = await stack.startLifecycle('60.00');
    const payments = sandboxPaymentsClient(stack.sandbox);
    const made = await payments.captureAuthorization(
      authorizationId,
      { amount: { currency_code: 'USD', value: '60.00' }, final_capture: true },
      `dashboard-${randomUUID()}`,
    );
    await signalCaptureCompleted(authorizationId, made.id, '60.00');
    expect((await lifecycleState(authorizationId))?.status).toBe('CAPTURED');

    for (const body of [{}, { amount: '60.00' }, { amount: '10.00' }]) {
      expect((await capture(authorizationId, randomUUID(), body)).status).toBe(409);
    }
    expect(await stack.capturesAtProvider(authorizationId)).toHaveLength(1);
  });

  it('is remembered past a shorter retention, as long as the provider honours its request id', async () => {
    const authorizationId = await stack.startLifecycle('100.00', { idempotencyKeyRetention: '2 seconds' });
    const early = randomUUID();
    expect((await capture(authorizationId, early, { amount: '1.00' })).status).toBe(200);

    await new Promise((resolve) => setTimeout(resolve, 2_200));
    const late = randomUUID();
    expect((await capture(authorizationId, late, { amount: '2.00' })).status).toBe(200);
    expect(
      (await lifecycleState(authorizationId))?.keyedAnswers.map((answer) => answer.idempotencyKey),
    ).toEqual([early, late]);
    // Past the asked retention the early key is still a reuse: another amount is refused, not replayed.
    expect((await capture(authorizationId, early, { amount: '3.00' })).status).toBe(422);
    expect(await stack.capturesAtProvider(authorizationId)).toHaveLength(2);
  });
});

describe('lifecycle robustness', () => {
  it('answers a start with 503 while the provider is down, and the start can be repeated later', async () => {
    const authorization = await stack.createAuthorization('10.00');
    await stack.provider.post('/sandbox/faults', { operation: 'get', mode: 'http500', count: 1000 });
    const refused = await stack.api.post('/v1/lifecycles', { authorizationId: authorization.id });
    expect(refused.status).toBe(503);
    expect(refused.data.error.code).toBe('PROVIDER_UNAVAILABLE');

    await stack.provider.delete('/sandbox/faults');
    const started = await stack.api.post('/v1/lifecycles', { authorizationId: authorization.id });
    expect(started.status).toBe(201);
  });

  it('bounds a timer reauthorization that keeps failing, records it, and captures go on', async () => {
    await stack.provider.post('/sandbox/faults', { operation: 'reauthorize', mode: 'http500', count: 1000 });
    const authorizationId = await stack.startLifecycle('50.00', {
      reauthorizeAfter: '1 second',
      timerCallTimeout: '3 seconds',
    });
    const handle = stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId));
    const failure = await eventually(
      async () => (await handle.query(stateQuery))?.reauthorizationFailure,
      (recorded) => recorded !== undefined,
      { what: 'the reauthorization failure in the state' },
    );
    // The provider's last answer before the bound ran out.
    expect(failure?.reason).toBe('INTERNAL_SERVER_ERROR');
    const { searchAttributes } = await handle.describe();
    expect(searchAttributes.ReauthorizationFailure).toEqual(['INTERNAL_SERVER_ERROR']);

    const captured = await capture(authorizationId, randomUUID(), { amount: '50.00' });
    expect(captured.status).toBe(200);
  });
});
