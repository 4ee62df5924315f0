import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import { lifecycleWorkflowId, stateQuery, terminalStatuses } from '../workflows/lifecycle/definitions';
import {
  OutcomeFailure,
  paymentState,
  type OutcomeActivities,
} from '../workflows/payment-outcome/definitions';

export function createOutcomeActivities(): OutcomeActivities {
  return {
    async paymentOutcome(authorizationId) {
      const workflowId = lifecycleWorkflowId(authorizationId);
      const found = Context.current().client.workflow.getHandle(workflowId);
      const { status, runId } = await found.describe().catch((error: unknown) => {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
        throw ApplicationFailure.nonRetryable(
          `no lifecycle for authorization ${authorizationId}`,
          OutcomeFailure.notFound,
        );
      });
      const handle = Context.current().client.workflow.getHandle(workflowId, runId, { followRuns: false });
      // null: the lifecycle is still reading its authorization (or failed doing so).
      const state = await handle.query(stateQuery);
      if (state && terminalStatuses.includes(state.status)) return paymentState(state);
      const reached = `the lifecycle is ${state?.status ?? 'starting'}`;
      // A run that continued as new hands over to the next one, read on the next attempt.
      if (status.name === 'RUNNING' || status.name === 'CONTINUED_AS_NEW') {
        throw ApplicationFailure.retryable(reached, OutcomeFailure.pending);
      }
      const why = status.name === 'FAILED' ? `: ${await failureOf(handle)}` : '';
      throw ApplicationFailure.nonRetryable(
        `the lifecycle of authorization ${authorizationId} closed ${status.name} without an outcome (${reached})${why}`,
        OutcomeFailure.noOutcome,
      );
    },
  };
}

/** Why a failed run failed, e.g. AUTHORIZATION_NOT_MANAGEABLE's message. */
async function failureOf(handle: { result(): Promise<unknown> }): Promise<string> {
  return handle.result().then(
    () => 'no failure recorded',
    (error: unknown) =>
      error instanceof WorkflowFailedError && error.cause ? error.cause.message : String(error),
  );
}
