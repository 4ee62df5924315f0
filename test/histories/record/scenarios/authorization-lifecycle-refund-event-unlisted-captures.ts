import { closedRun, lifecycleReaches } from '../lifecycles';
import { capturedLifecycle, dashboardRefund } from '../provider-events';
import type { Scenario } from '../scenario';

export const refundEventUnlistedCaptures: Scenario = {
  name: 'authorization-lifecycle-refund-event-unlisted-captures',
  shows: 'a dashboard refund’s event reaching a lifecycle by the capture’s link',
  async drive(stack) {
    const { authorizationId, captureId } = await capturedLifecycle(stack, '2 seconds');
    const refunded = await dashboardRefund(stack, captureId);
    await lifecycleReaches(
      stack,
      authorizationId,
      (state) => (state.refunds ?? []).some((refund) => refund.id === refunded.id),
      `the dashboard refund ${refunded.id}`,
    );
    return closedRun(stack, authorizationId);
  },
};
