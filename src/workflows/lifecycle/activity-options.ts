import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Duration, RetryPolicy } from '@temporalio/common';
import type { PaymentsActivities } from '../../activities/payments';
import type { LedgerActivities } from '../../activities/ledger';
import { providerActivityName, type ProviderName } from '../../provider-names';

// Who waits on a provider call decides how long it may retry.

const orderSystemRetry: RetryPolicy = {
  initialInterval: '500 ms',
  backoffCoefficient: 2,
  maximumInterval: '5 seconds',
  maximumAttempts: 5,
};

/**
 * A reauthorization an order system asks for runs as a local activity: no extra round trip through the
 * server, so it answers about as fast as the provider does. A few quick retries, then the Update fails
 * retryably and the caller repeats it with the same idempotency key.
 */
export const orderSystemCalls = proxyLocalActivities<PaymentsActivities>({
  startToCloseTimeout: '30 seconds',
  retry: orderSystemRetry,
});

/**
 * Captures, refunds and voids run as activities: scheduling one completes the workflow task that accepted
 * the Update, so the Update (and a capture's or refund's pending attempt) is in history before the provider
 * is called, and a worker that dies during the call leaves both for the next worker (a local activity would
 * run inside that task and be lost with it). The task that answers a void may also close the run (no
 * late-event window): a provider event that arrives meanwhile fails that task, and an Update accepted in an
 * earlier task outlives it, where one accepted in the same task would be aborted. A call outlives the
 * provider's timeout (PAYMENTS_TIMEOUT_MS, 10 s by default) and ends early enough for a retry on another
 * worker to answer within the API's wait.
 */
export const keyedCalls = proxyActivities<PaymentsActivities>({
  startToCloseTimeout: '15 seconds',
  retry: orderSystemRetry,
});

/**
 * The start reads the authorization while its caller waits: a provider that is down fails it in seconds. A
 * local activity, so the read is part of the run's first workflow task (a marker, not an activity's three
 * events and a second task).
 */
export const startCalls = proxyLocalActivities<PaymentsActivities>({
  startToCloseTimeout: '5 seconds',
  scheduleToCloseTimeout: '5 seconds',
  // Bounded by attempts too: a local activity's retries (0.5, 1 and 2 s apart) end within the wait above.
  retry: {
    initialInterval: '500 ms',
    backoffCoefficient: 2,
    maximumInterval: '2 seconds',
    maximumAttempts: 4,
  },
});

/**
 * Calls nobody waits on (timers) retry until the provider answers, for at most `timeout`: a call that keeps
 * failing must not hold captures and the expiry timer behind it forever.
 */
export function timerCalls(timeout: Duration) {
  return proxyActivities<PaymentsActivities>({
    startToCloseTimeout: '30 seconds',
    scheduleToCloseTimeout: timeout,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
}

export type PaymentsCalls = typeof orderSystemCalls;

/**
 * The calls of the lifecycle's provider, under its names (providerActivityName). Names rather than a task
 * queue per provider because the calls an order system waits on are local activities, which run on the
 * worker that runs the workflow.
 */
export function ofProvider<Calls extends object>(calls: Calls, provider: ProviderName): Calls {
  return new Proxy(calls, {
    get: (target, name) =>
      Reflect.get(target, typeof name === 'string' ? providerActivityName(provider, name) : name),
  });
}

/** The ledger's counters on the worker (no provider call): a local activity, a few quick attempts. */
export const ledgerCalls = proxyLocalActivities<LedgerActivities>({
  startToCloseTimeout: '5 seconds',
  retry: { maximumAttempts: 3 },
});
