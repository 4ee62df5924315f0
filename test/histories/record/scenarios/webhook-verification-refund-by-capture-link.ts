import { verificationRunOf } from '../deliveries';
import { lifecycleReaches } from '../lifecycles';
import { capturedLifecycle, dashboardRefund } from '../provider-events';
import type { Scenario } from '../scenario';

export const verificationRefundByCaptureLink: Scenario = {
  name: 'webhook-verification-refund-by-capture-link',
  shows: 'a refund’s event routed to its lifecycle through the provider’s link from the capture',
  async drive(stack) {
    const { authorizationId, captureId } = await capturedLifecycle(stack, '3 days');
    const refunded = await dashboardRefund(stack, captureId);
    await lifecycleReaches(
      stack,
      authorizationId,
      (state) => (state.refunds ?? []).some((refund) => refund.id === refunded.id),
      `the dashboard refund ${refunded.id}`,
    );
    return verificationRunOf(stack, (event) => event.refundId === refunded.id);
  },
};
