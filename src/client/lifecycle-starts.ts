import type { Client, WorkflowIdReusePolicy } from '@temporalio/client';
import type { PaymentEvent } from '../providers/events';
import {
  lifecycleSummary,
  lifecycleWorkflowId,
  lifecycleWorkflowType,
  paymentEventSignal,
  type LifecycleInput,
  type LifecycleState,
} from '../workflows/lifecycle/definitions';
import { lifecycleStartAttributes } from '../workflows/search-attributes';

// Every run of a lifecycle starts the same way, whoever starts it: the client library for a new lifecycle or a
// refund of a closed one, the webhook activity for a provider event about a closed one. (Below the activities'
// layer, so that both use it: eslint.config.mjs.)

/** A run's start: its workflow id, the owner and provider in its memo, what it shows operators from its start. */
export function lifecycleStartOptions(
  input: LifecycleInput,
  taskQueue: string,
  reusePolicy: WorkflowIdReusePolicy,
) {
  return {
    workflowId: lifecycleWorkflowId(input.authorizationId),
    taskQueue,
    args: [input] as [LifecycleInput],
    workflowIdReusePolicy: reusePolicy,
    // The owner's client checks the memo (LifecycleClient.confine): a reopened run stays its owner's.
    memo: { ...(input.owner !== undefined && { owner: input.owner }), provider: input.provider },
    typedSearchAttributes: lifecycleStartAttributes(input),
    staticSummary: lifecycleSummary(input.authorizationId, input.orderId),
  };
}

/**
 * The next run of a closed lifecycle that ended (CAPTURED, REFUNDED, …), started from its final state:
 * captures, refunds and keyed answers carried, no timer but the late-event window.
 */
export function reopenedInput(state: LifecycleState): LifecycleInput {
  return {
    authorizationId: state.authorizationId,
    provider: state.provider,
    orderId: state.orderId,
    ...(state.owner !== undefined && { owner: state.owner }),
    carriedState: { ...state, nextTimer: undefined, closesAt: undefined, runEnded: undefined },
  };
}

/**
 * Reopens a closed lifecycle with a provider event in the same request (signal-with-start). Another event at
 * the same time signals that one run, which skips an event id it has seen and closes again after its
 * late-event window.
 */
export async function reopenForEvent(
  client: Client,
  taskQueue: string,
  state: LifecycleState,
  event: PaymentEvent,
): Promise<void> {
  await client.workflow.signalWithStart(lifecycleWorkflowType, {
    ...lifecycleStartOptions(reopenedInput(state), taskQueue, 'ALLOW_DUPLICATE'),
    signal: paymentEventSignal,
    signalArgs: [event],
  });
}
