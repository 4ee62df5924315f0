import { capture, lifecycleReaches, lifecycleRun, startLifecycle } from '../lifecycles';
import type { Scenario } from '../scenario';

// test/unit/history-encryption.test.ts looks for these values: only encrypted, never in plain text.
const ORDER_ID = 'order-da3d883c';
const AUTHORIZED = '173.19';
const CAPTURED = '61.37';

export const encrypted: Scenario = {
  name: 'authorization-lifecycle-encrypted',
  shows: `authorized ${AUTHORIZED} for ${ORDER_ID}, ${CAPTURED} captured; running, payloads encrypted`,
  async drive(stack) {
    const authorizationId = await startLifecycle(stack, AUTHORIZED, { orderId: ORDER_ID });
    await capture(stack, authorizationId, 'encrypted-capture-1', { amount: CAPTURED });
    await lifecycleReaches(
      stack,
      authorizationId,
      (state) => state.status === 'PARTIALLY_CAPTURED',
      'the capture to be booked',
    );
    return lifecycleRun(stack, authorizationId);
  },
};
