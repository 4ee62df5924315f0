import { randomUUID } from 'node:crypto';
import { createPaymentsActivities } from '../../src/activities/payments';
import { useLifecycleStack } from '../helpers/lifecycle-stack';

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
