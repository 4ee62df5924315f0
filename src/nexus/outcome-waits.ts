import type { Client } from '@temporalio/client';
import { OUTCOME_WORKFLOW_PREFIX as PREFIX } from '../codec/endpoint-keys';
import { refusal } from './refusal';

// awaitOutcome starts one paymentOutcome workflow per operation, named after its caller so that the waits
// of one caller can be counted (and their payloads encrypted with that caller's endpoint key).

/** `payment-outcome/<caller namespace>/<authorization id>/<request id>`: a retried start joins its workflow. */
export function outcomeWorkflowId(caller: string, authorizationId: string, requestId: string): string {
  return `${PREFIX}${caller}/${authorizationId}/${requestId}`;
}

/**
 * Refuses a new wait when the caller already has `limit` open ones: RESOURCE_EXHAUSTED, not retried, so a
 * runaway caller learns at once and keeps no retries going (a retry of a start already counted passes). The
 * count is the server's visibility, a moment behind: a burst of starts can pass the limit by what is in flight.
 */
export async function boundOutcomeWaits(
  client: Client,
  caller: string,
  workflowId: string,
  limit: number,
): Promise<void> {
  const query =
    `WorkflowType = 'paymentOutcome' AND ExecutionStatus = 'Running' ` +
    `AND WorkflowId STARTS_WITH '${PREFIX}${caller}/'`;
  const { count } = await client.workflow.count(query);
  if (count < limit) return;
  try {
    await client.workflow.getHandle(workflowId).describe();
    return;
  } catch (error) {
    if ((error as { name?: unknown }).name !== 'WorkflowNotFoundError') throw error;
  }
  throw refusal(
    'RESOURCE_EXHAUSTED',
    `namespace "${caller}" has ${count} open outcome waits, the most allowed (${limit}); ` +
      'wait for one to complete or cancel one',
  );
}
