import { verificationRunOf } from '../deliveries';
import { dashboardRefundOfLifecycle } from '../provider-events';
import type { Scenario } from '../scenario';

export const verificationRefundByCaptureLink: Scenario = {
  name: 'webhook-verification-refund-by-capture-link',
  shows: 'a refund’s event routed to its lifecycle through the provider’s link from the capture',
  async drive(stack) {
    const { refund } = await dashboardRefundOfLifecycle(stack, '3 days');
    return verificationRunOf(stack, (event) => event.refundId === refund.id);
  },
};
