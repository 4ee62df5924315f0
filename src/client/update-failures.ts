import { ServiceError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';

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
 * The lifecycle's run ended (continued as new) while it held the Update, and the retries did not get past it:
 * the lifecycle is open; a retry with the same key is answered by the next run.
 */
export class LifecycleRunEndedError extends Error {
  override name = 'LifecycleRunEndedError';
}

/** The server's failure type for an accepted Update whose run ended before answering it. */
const ACCEPTED_UPDATE_COMPLETED_WORKFLOW = 'AcceptedUpdateCompletedWorkflow';
// gRPC FAILED_PRECONDITION, with which the server aborts an Update whose workflow task failed.
const FAILED_PRECONDITION = 9;

/** A keyed Update that met a run's end or a failed workflow task is sent again, after each of these pauses. */
export const UPDATE_RETRY_DELAYS_MS = [20, 100, 300];

/** An Update that met the lifecycle between two runs or in a failed workflow task, as its own error. */
export function betweenTasks(error: unknown): LifecycleTaskFailedError | LifecycleRunEndedError | undefined {
  if (error instanceof LifecycleRunEndedError) return error;
  const cause = error instanceof Error ? error.cause : undefined;
  if (
    error instanceof ServiceError &&
    (cause as { code?: unknown } | undefined)?.code === FAILED_PRECONDITION &&
    /workflow task failure/.test(String((cause as { details?: unknown }).details))
  ) {
    return new LifecycleTaskFailedError(
      'the lifecycle failed to take the request (a workflow task failed); retry with the same Idempotency-Key',
      { cause: error },
    );
  }
  if (
    error instanceof WorkflowUpdateFailedError &&
    cause instanceof ApplicationFailure &&
    cause.type === ACCEPTED_UPDATE_COMPLETED_WORKFLOW
  ) {
    return new LifecycleRunEndedError(
      'the lifecycle moved to a new run while taking the request; retry with the same Idempotency-Key',
      { cause: error },
    );
  }
  return undefined;
}
