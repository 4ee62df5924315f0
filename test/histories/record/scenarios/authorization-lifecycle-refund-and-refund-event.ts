import { capture, closedRun, lifecycleReaches, refund, settledLifecycle, startLifecycle } from '../lifecycles';
import type { Scenario } from '../scenario';

export const refundAndRefundEvent: Scenario = {
  name: 'authorization-lifecycle-refund-and-refund-event',
  shows: 'a keyed refund of a capture, then the provider’s REFUNDED event of it (not counted twice)',
  async drive(stack) {
    const authorizationId = await startLifecycle(stack, '100.00', { lateEventWindow: '3 seconds' });
    const captured = await capture(stack, authorizationId, 'cap-1', { amount: '100.00' });
    await settledLifecycle(stack, authorizationId);
    const made = await refund(stack, authorizationId, captured.id, 'refund-1', { amount: '30.00' });
    await lifecycleReaches(
      stack,
      authorizationId,
      (state) => state.recentEvents.some((event) => event.eventType === 'capture.refunded'),
      `the REFUNDED event of ${made.id}`,
    );
    return closedRun(stack, authorizationId);
  },
};
