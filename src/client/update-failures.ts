import { ServiceError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { LifecycleFailure } from '../workflows/lifecycle/definitions';

// An Update can meet a lifecycle between two of its workflow tasks: its task failed, or its run ended by
// continue-as-new while it held the Update. Neither is the caller's doing, and a keyed retry is safe.

/**
 * The lifecycle's workflow task failed while it held the Update, and the retries did not get past it: the
 * server aborted the Update ("unexpected workflow task failure"); what it did is not known to the caller.
 */
export class LifecycleTaskFailedError extends Error {
  override name = 'LifecycleTaskFailedError';
}

/**
 * The lifecycle's run ended (continued as new) while it held the Update, or was still closing when the Update
 * came, and the retries did not get past it: the lifecycle is open; a retry with the same key is answered by
 * the next run.
 */
export class LifecycleRunEndedError extends Error {
  override name = 'LifecycleRunEndedError';
}

/**
 * The failure types of an Update that met the run's end: accepted by a run that ended before answering it (the
 * server's), or refused by a run about to continue as new (the lifecycle's, LifecycleFailure.runContinuing).
 */
const RUN_ENDED_TYPES: string[] = ['AcceptedUpdateCompletedWorkflow', LifecycleFailure.runContinuing];
// gRPC FAILED_PRECONDITION, with which the server aborts an Update whose workflow task failed.
const FAILED_PRECONDITION = 9;
// gRPC RESOURCE_EXHAUSTED, with which the server refuses an Update while the run is closing (continuing as
// new), once its own retries and the SDK's did not see the next run.
const RESOURCE_EXHAUSTED = 8;

/** Whether a ServiceError's gRPC cause has this code and says this. */
function grpcCause(error: ServiceError, code: number, says: RegExp): boolean {
  const cause = error.cause as { code?: unknown; details?: unknown } | undefined;
  return cause?.code === code && says.test(String(cause.details));
}

/**
 * A keyed Update that met a run's end or a failed workflow task is sent again, after each of these pauses
 * (15.4 s in all, inside the API's 25 s answer wait): a run about to continue as new first lets the requests
 * it took finish, one provider call at a time, and with 8 in flight on the cluster that took more than 4 s.
 */
export const UPDATE_RETRY_DELAYS_MS = [20, 100, 300, 1_000, 2_000, 3_000, 4_000, 5_000];

/** An Update that met the lifecycle between two runs or in a failed workflow task, as its own error. */
export function betweenTasks(error: unknown): LifecycleTaskFailedError | LifecycleRunEndedError | undefined {
  if (error instanceof LifecycleRunEndedError) return error;
  if (error instanceof ServiceError && grpcCause(error, FAILED_PRECONDITION, /workflow task failure/)) {
    return new LifecycleTaskFailedError(
      'the lifecycle failed to take the request (a workflow task failed); retry with the same Idempotency-Key',
      { cause: error },
    );
  }
  const cause = error instanceof Error ? error.cause : undefined;
  if (
    (error instanceof ServiceError && grpcCause(error, RESOURCE_EXHAUSTED, /workflow is closing/)) ||
    (error instanceof WorkflowUpdateFailedError &&
      cause instanceof ApplicationFailure &&
      RUN_ENDED_TYPES.includes(cause.type ?? ''))
  ) {
    return new LifecycleRunEndedError(
      'the lifecycle moved to a new run while taking the request; retry with the same Idempotency-Key',
      { cause: error },
    );
  }
  return undefined;
}
