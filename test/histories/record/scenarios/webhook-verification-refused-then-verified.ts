import { verificationRunOf } from '../deliveries';
import { capture, lifecycleReaches, startLifecycle } from '../lifecycles';
import type { Scenario } from '../scenario';

export const verificationRefusedThenVerified: Scenario = {
  name: 'webhook-verification-refused-then-verified',
  shows: 'a verify call refused 403 (settings), asked again after its timer, then verified and delivered',
  async drive(stack) {
    const authorizationId = await startLifecycle(stack, '100.00');
    stack.refusals.refuseOnce((verifyRequest) => verifyRequest.includes(authorizationId));
    const captured = await capture(stack, authorizationId, 'refused-capture-1', { amount: '25.00' });
    await lifecycleReaches(
      stack,
      authorizationId,
      (state) => state.recentEvents.some((event) => event.captureId === captured.id),
      'the capture’s event, verified at the second ask',
    );
    return verificationRunOf(stack, (event) => event.captureId === captured.id);
  },
};
