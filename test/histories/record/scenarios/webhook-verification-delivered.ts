import { verificationRunOf } from '../deliveries';
import { capture, lifecycleReaches, startLifecycle } from '../lifecycles';
import type { Scenario } from '../scenario';

export const verificationDelivered: Scenario = {
  name: 'webhook-verification-delivered',
  shows: 'a capture’s event verified and signalled to its lifecycle by authorization id',
  async drive(stack) {
    const authorizationId = await startLifecycle(stack, '100.00');
    const captured = await capture(stack, authorizationId, 'delivered-capture-1');
    await lifecycleReaches(stack, authorizationId, (state) => state.status === 'CAPTURED', 'CAPTURED');
    return verificationRunOf(stack, (event) => event.captureId === captured.id);
  },
};
