import { capture, closedRun, lifecycleReaches, settledLifecycle, startLifecycle } from '../lifecycles';
import type { Scenario } from '../scenario';

export const lateCaptureEvent: Scenario = {
  name: 'authorization-lifecycle-late-capture-event',
  shows: 'the final capture’s event taken during the late-event window, then the run closes',
  async drive(stack) {
    const authorizationId = await startLifecycle(stack, '100.00', {
      orderId: 'order-walkthrough',
      lateEventWindow: '5 seconds',
    });
    await capture(stack, authorizationId, 'cap-1', { amount: '40.00' });
    await settledLifecycle(stack, authorizationId);
    // The rest: the lifecycle is CAPTURED when this capture answers, before the provider's event of it.
    const final = await capture(stack, authorizationId, 'cap-2');
    await lifecycleReaches(
      stack,
      authorizationId,
      (state) => state.recentEvents.some((event) => event.captureId === final.id),
      'the final capture’s event',
    );
    return closedRun(stack, authorizationId);
  },
};
