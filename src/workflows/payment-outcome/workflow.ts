import { proxyActivities } from '@temporalio/workflow';
import type { OutcomeActivities, PaymentState } from './definitions';

/**
 * Backs the Nexus `awaitOutcome` operation: waits until the lifecycle reaches a terminal status, for days if
 * need be. The wait is one activity that Temporal retries until the lifecycle is terminal: retries write
 * nothing to history (the pending activity shows its attempt and last "pending" answer), and the backoff caps
 * at a minute, so an outcome is seen within a minute of happening. The lifecycle itself knows nothing of its
 * waiters, and any number of callers can wait on one lifecycle.
 */
const { paymentOutcome: readOutcome } = proxyActivities<OutcomeActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function paymentOutcome(authorizationId: string): Promise<PaymentState> {
  return readOutcome(authorizationId);
}
