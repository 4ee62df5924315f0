import { capture, closedRun, lifecycleReaches, lifecycleRun, refund, startLifecycle } from '../lifecycles';
import { settledDeliveries } from '../deliveries';
import type { Scenario } from '../scenario';

export const refundReopened: Scenario = {
  name: 'authorization-lifecycle-refund-reopened',
  shows: 'a keyed refund that reopens the closed lifecycle (update-with-start), and its REFUNDED event',
  async drive(stack) {
    const authorizationId = await startLifecycle(stack, '100.00', { lateEventWindow: '0 seconds' });
    const captured = await capture(stack, authorizationId, 'cap-1', { amount: '100.00' });
    await closedRun(stack, authorizationId);
    // The capture's event comes after the run closed: unrouted, before the refund reopens it.
    await settledDeliveries(stack);
    const made = await refund(stack, authorizationId, captured.id, 'refund-2', { amount: '10.00' });
    await lifecycleReaches(
      stack,
      authorizationId,
      (state) => state.recentEvents.some((event) => event.eventType === 'capture.refunded'),
      `the REFUNDED event of ${made.id}`,
    );
    return lifecycleRun(stack, authorizationId);
  },
};
