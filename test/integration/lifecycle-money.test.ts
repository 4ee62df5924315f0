import { randomUUID } from 'node:crypto';
import { createPaymentsActivities } from '../../src/activities/payments';
import { useLifecycleStack } from '../helpers/lifecycle-stack';
import {
  lifecycleWorkflowId,
  paymentEventSignal,
  stateQuery,
} from '../../src/workflows/lifecycle/definitions';

// The lifecycle's money invariants over the real API, the dev server and the sandbox (docs/lifecycle.md,
// "Money invariants"). The worker's provider declares a bound of 3 captures per authorization.

const stack = useLifecycleStack({
  worker: (taskQueue, payments) => ({
    taskQueue,
    activities: createPaymentsActivities({
      ...payments,
      capabilities: { ...payments.capabilities, maxCaptures: 3 },
    }),
  }),
});

function capture(authorizationId: string, body: Record<string, unknown>) {
  return stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, body, {
    headers: { 'idempotency-key': randomUUID() },
  });
}

describe('captures of one lifecycle', () => {
  it("stop at the provider's bound with a 409 naming it, before the provider is called", async () => {
    const authorizationId = await stack.startLifecycle('100.00');
    for (let n = 0; n < 3; n++)
      expect((await capture(authorizationId, { amount: '10.00' })).status).toBe(200);
    const refused = await capture(authorizationId, { amount: '10.00' });
    expect(refused.status).toBe(409);
    expect(refused.data.error).toMatchObject({ code: 'LIFECYCLE_STATE_FORBIDS' });
    expect(refused.data.error.message).toContain('maxCaptures 3');
    expect(await stack.capturesAtProvider(authorizationId)).toHaveLength(3);
  });
});

describe('an amount in another currency', () => {
  it('reported by the provider is recorded with a note, never booked: JPY 50 on a USD lifecycle', async () => {
    const authorizationId = await stack.startLifecycle('100.00');
    const handle = stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId));
    await handle.signal(paymentEventSignal, {
      id: `WH-${randomUUID()}`,
      eventType: 'PAYMENT.CAPTURE.COMPLETED',
      authorizationId,
      captureId: `C-${randomUUID()}`,
      amount: { currency_code: 'JPY', value: '50' },
    });
    const state = await handle.query(stateQuery);
    expect(state).toMatchObject({ status: 'AUTHORIZED', capturedAmount: '0.00', remainingAmount: '100.00' });
    expect(state?.recentEvents).toEqual([
      expect.objectContaining({ applied: false, note: "amount in JPY, not the lifecycle's USD: not booked" }),
    ]);
    // All 100.00 can still be captured.
    expect((await capture(authorizationId, {})).data.amount).toEqual({
      currency_code: 'USD',
      value: '100.00',
    });
  });
});
