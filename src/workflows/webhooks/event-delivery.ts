import { ApplicationFailure, getExternalWorkflowHandle, isCancellation } from '@temporalio/workflow';
import { lifecycleWorkflowId, paymentEventSignal, type PaymentEvent } from '../lifecycle/definitions';
import { PAYMENT_EVENT_UNROUTED, type PaymentEventDelivered } from './definitions';

/**
 * Signals one verified provider event to the lifecycle of its authorization. Runs as a child with the
 * event's id as workflow id, so a second transmission of the same event is refused at start. With no
 * running lifecycle it fails as PAYMENT_EVENT_UNROUTED, once: operators list these runs by type and status.
 */
export async function paymentEventDelivery(event: PaymentEvent): Promise<PaymentEventDelivered> {
  const workflowId = lifecycleWorkflowId(event.authorizationId);
  try {
    await getExternalWorkflowHandle(workflowId).signal(paymentEventSignal, event);
  } catch (error) {
    // Signalling another workflow fails only when it is not running (never started, or closed).
    if (isCancellation(error)) throw error;
    throw ApplicationFailure.create({
      type: PAYMENT_EVENT_UNROUTED,
      message: `no running lifecycle ${workflowId} for ${event.eventType} ${event.id}: ${error instanceof Error ? error.message : String(error)}`,
      nonRetryable: true,
    });
  }
  return { lifecycleWorkflowId: workflowId, signalledAt: new Date().toISOString() };
}
