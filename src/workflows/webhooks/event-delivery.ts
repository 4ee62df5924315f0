import {
  ApplicationFailure,
  getExternalWorkflowHandle,
  isCancellation,
  proxyLocalActivities,
} from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/webhooks';
import { lifecycleWorkflowId, paymentEventSignal, type PaymentEvent } from '../lifecycle/definitions';
import { PAYMENT_EVENT_UNROUTED, type PaymentEventDelivered } from './definitions';

const { findLifecycleOfAuthorization } = proxyLocalActivities<WebhookActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 5 },
});

async function signalLifecycle(workflowId: string, event: PaymentEvent): Promise<string | undefined> {
  try {
    await getExternalWorkflowHandle(workflowId).signal(paymentEventSignal, event);
    return undefined;
  } catch (error) {
    // Signalling another workflow fails only when it is not running (never started, or closed).
    if (isCancellation(error)) throw error;
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Signals one verified provider event to the lifecycle of its authorization. Runs as a child with the
 * event's id as workflow id, so a second transmission of the same event is refused at start. With no
 * running lifecycle it fails as PAYMENT_EVENT_UNROUTED, once: operators list these runs by type and status.
 */
export async function paymentEventDelivery(event: PaymentEvent): Promise<PaymentEventDelivered> {
  let workflowId = lifecycleWorkflowId(event.authorizationId);
  let failure = await signalLifecycle(workflowId, event);
  if (failure) {
    // An event about a reauthorization: the lifecycle carries the original authorization's id.
    const holder = await findLifecycleOfAuthorization(event.authorizationId);
    if (holder) {
      workflowId = holder;
      failure = await signalLifecycle(workflowId, event);
    }
  }
  if (failure) {
    throw ApplicationFailure.create({
      type: PAYMENT_EVENT_UNROUTED,
      message: `no running lifecycle holds authorization ${event.authorizationId} (tried ${lifecycleWorkflowId(event.authorizationId)} and AuthorizationIds) for ${event.eventType} ${event.id}: ${failure}`,
      nonRetryable: true,
    });
  }
  return { lifecycleWorkflowId: workflowId, signalledAt: new Date().toISOString() };
}
