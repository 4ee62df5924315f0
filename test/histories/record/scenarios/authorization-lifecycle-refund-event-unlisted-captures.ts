import { closedRun } from '../lifecycles';
import { dashboardRefundOfLifecycle } from '../provider-events';
import type { Scenario } from '../scenario';

export const refundEventUnlistedCaptures: Scenario = {
  name: 'authorization-lifecycle-refund-event-unlisted-captures',
  shows: 'a dashboard refund’s event reaching a lifecycle by the capture’s link',
  async drive(stack) {
    const { authorizationId } = await dashboardRefundOfLifecycle(stack, '2 seconds');
    return closedRun(stack, authorizationId);
  },
};
