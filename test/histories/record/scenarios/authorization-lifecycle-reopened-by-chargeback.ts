import { lifecycleReaches, lifecycleRun } from '../lifecycles';
import { chargebackOfClosedLifecycle } from '../provider-events';
import type { Scenario } from '../scenario';

export const reopenedByChargeback: Scenario = {
  name: 'authorization-lifecycle-reopened-by-chargeback',
  shows: 'the run a chargeback’s event reopens (signal-with-start), REVERSED',
  async drive(stack) {
    const { authorizationId } = await chargebackOfClosedLifecycle(stack);
    await lifecycleReaches(stack, authorizationId, (state) => state.status === 'REVERSED', 'REVERSED');
    return lifecycleRun(stack, authorizationId);
  },
};
