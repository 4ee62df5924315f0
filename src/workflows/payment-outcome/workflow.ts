import { ActivityFailure, ApplicationFailure, proxyActivities, TimeoutFailure } from '@temporalio/workflow';
import { durationBounds } from '../../duration-bounds';
import { OutcomeFailure, type OutcomeActivities, type PaymentState } from './definitions';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * How long the wait may last: a lifecycle reaches a terminal status at the latest when its expiry policy
 * runs (at most `expiryPolicyAfter`'s bound after the authorization was made, which is before the wait
 * starts) and the policy's void has retried for `timerCallTimeout`'s bound; a day's margin on top.
 */
export const OUTCOME_WAIT_MS =
  durationBounds.expiryPolicyAfter.max + durationBounds.timerCallTimeout.max + DAY_MS;

/**
 * Backs the Nexus `awaitOutcome` operation: waits until the lifecycle reaches a terminal status, for days if
 * need be. The wait is one activity that Temporal retries until the lifecycle is terminal: retries write
 * nothing to history (the pending activity shows its attempt and last "pending" answer), and the backoff caps
 * at a minute, so an outcome is seen within a minute of happening. The lifecycle itself knows nothing of its
 * waiters, and any number of callers can wait on one lifecycle. The wait ends with a failure naming why when
 * the lifecycle closes without a terminal status, or when none comes within OUTCOME_WAIT_MS.
 */
const { paymentOutcome: readOutcome } = proxyActivities<OutcomeActivities>({
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: OUTCOME_WAIT_MS,
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function paymentOutcome(authorizationId: string): Promise<PaymentState> {
  try {
    return await readOutcome(authorizationId);
  } catch (error) {
    if (!(error instanceof ActivityFailure && error.cause instanceof TimeoutFailure)) throw error;
    throw ApplicationFailure.create({
      type: OutcomeFailure.noOutcome,
      message: `the lifecycle of authorization ${authorizationId} reached no outcome within ${OUTCOME_WAIT_MS / DAY_MS} days (${error.cause.cause?.message ?? 'not read'})`,
      nonRetryable: true,
    });
  }
}
