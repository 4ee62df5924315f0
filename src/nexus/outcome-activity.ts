import { Context } from '@temporalio/activity';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import { lifecycleWorkflowId, stateQuery, terminalStatuses } from '../workflows/lifecycle/definitions';
import { paymentState } from './payment-state';
import { PaymentsFailure, type PaymentState } from './service';

/** The failure type of an outcome not reached yet: retried by the waiting workflow's retry policy. */
const OUTCOME_PENDING = 'PAYMENT_OUTCOME_PENDING';

export function createOutcomeActivities() {
  return {
    /** The lifecycle's state once it is terminal; a retryable OUTCOME_PENDING failure until then. */
    async paymentOutcome(authorizationId: string): Promise<PaymentState> {
      const handle = Context.current().client.workflow.getHandle(lifecycleWorkflowId(authorizationId));
      const state = await handle.query(stateQuery).catch((error: unknown) => {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
        throw ApplicationFailure.nonRetryable(
          `no lifecycle for authorization ${authorizationId}`,
          PaymentsFailure.notFound,
        );
      });
      // null: the lifecycle is still reading its authorization.
      if (!state || !terminalStatuses.includes(state.status)) {
        throw ApplicationFailure.retryable(
          `the lifecycle is ${state?.status ?? 'starting'}`,
          OUTCOME_PENDING,
        );
      }
      return paymentState(state);
    },
  };
}

export type OutcomeActivities = ReturnType<typeof createOutcomeActivities>;
