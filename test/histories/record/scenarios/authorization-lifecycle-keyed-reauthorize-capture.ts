import {
  capture,
  closedRun,
  command,
  lifecycleReaches,
  settledLifecycle,
  startLifecycle,
} from '../lifecycles';
import type { Scenario } from '../scenario';

export const keyedReauthorizeCapture: Scenario = {
  name: 'authorization-lifecycle-keyed-reauthorize-capture',
  shows: 'keyed partial capture and its event, the key repeated, a reauthorization, the final capture',
  async drive(stack) {
    const authorizationId = await startLifecycle(stack, '100.00', {
      orderId: 'order-rec',
      lateEventWindow: '2 seconds',
    });
    await capture(stack, authorizationId, 'rec-partial', { amount: '30.00' });
    await settledLifecycle(stack, authorizationId);
    await capture(stack, authorizationId, 'rec-partial', { amount: '30.00' });
    await command(stack, authorizationId, 'reauthorize', 'rec-reauth');
    await capture(stack, authorizationId, 'rec-final');
    await lifecycleReaches(stack, authorizationId, (state) => state.status === 'CAPTURED', 'CAPTURED');
    return closedRun(stack, authorizationId);
  },
};
