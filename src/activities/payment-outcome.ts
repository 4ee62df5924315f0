import { Context } from '@temporalio/activity';
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
      const handle = Context.current().client.workflow.getHandle(lifecycleWorkflowId(authorizationId));
      const state = await handle.query(stateQuery).catch((error: unknown) => {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
        throw ApplicationFailure.nonRetryable(
          `no lifecycle for authorization ${authorizationId}`,
          OutcomeFailure.notFound,
        );
      });
      // null: the lifecycle is still reading its authorization.
      if (!state || !terminalStatuses.includes(state.status)) {
        throw ApplicationFailure.retryable(
          `the lifecycle is ${state?.status ?? 'starting'}`,
          OutcomeFailure.pending,
        );
      }
      return paymentState(state);
    },
  };
}
