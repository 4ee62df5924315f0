import { verificationRunOf } from '../deliveries';
import { lifecycleReaches } from '../lifecycles';
import { chargebackOfClosedLifecycle } from '../provider-events';
import type { Scenario } from '../scenario';

export const verificationChargebackReopens: Scenario = {
  name: 'webhook-verification-chargeback-reopens',
  shows: 'a chargeback’s event of a closed lifecycle: routed by the capture’s link, reopening the lifecycle',
  async drive(stack) {
    const { authorizationId, reversalId } = await chargebackOfClosedLifecycle(stack);
    await lifecycleReaches(stack, authorizationId, (state) => state.status === 'REVERSED', 'REVERSED');
    return verificationRunOf(stack, (event) => event.refundId === reversalId);
  },
};
