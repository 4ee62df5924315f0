import { capture, closedRun, settledLifecycle, startLifecycle } from '../lifecycles';
import type { Scenario } from '../scenario';

export const partialThenFinalCapture: Scenario = {
  name: 'authorization-lifecycle-partial-then-final-capture',
  shows: 'a keyed partial capture and its event, then the final capture; no late-event window',
  async drive(stack) {
    const authorizationId = await startLifecycle(stack, '100.00', {
      orderId: 'order-42',
      lateEventWindow: '0 seconds',
    });
    await capture(stack, authorizationId, 'order-42-capture-1', { amount: '40.00' });
    await settledLifecycle(stack, authorizationId);
    await capture(stack, authorizationId, 'order-42-capture-2');
    return closedRun(stack, authorizationId);
  },
};
