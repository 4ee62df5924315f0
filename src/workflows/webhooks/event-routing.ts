import { getExternalWorkflowHandle, isCancellation, proxyLocalActivities } from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/webhooks';
import { lifecycleWorkflowId, paymentEventSignal, type PaymentEvent } from '../lifecycle/definitions';
import type { PaymentEventRouted } from './definitions';

const { findLifecycleOfAuthorization } = proxyLocalActivities<WebhookActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 5 },
});

/** Signals the event to one lifecycle; the failure's message when that lifecycle is not running. */
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
 * Signals a verified provider event to the lifecycle that holds its authorization: `authorization-<id>`, or,
 * for an event about a reauthorization, the lifecycle whose AuthorizationIds list that id. The lifecycle
 * skips an event id it has already seen, so a second transmission of the same event changes nothing.
 */
export async function routePaymentEvent(event: PaymentEvent): Promise<PaymentEventRouted> {
  let workflowId = lifecycleWorkflowId(event.authorizationId);
  let failure = await signalLifecycle(workflowId, event);
  if (failure) {
    const holder = await findLifecycleOfAuthorization(event.authorizationId);
    if (holder) {
      workflowId = holder;
      failure = await signalLifecycle(workflowId, event);
    }
  }
  if (failure) {
    return {
      routed: false,
      reason: `no running lifecycle holds authorization ${event.authorizationId} (tried ${lifecycleWorkflowId(event.authorizationId)} and AuthorizationIds) for ${event.eventType} ${event.id}: ${failure}`,
    };
  }
  return { routed: true, lifecycleWorkflowId: workflowId, signalledAt: new Date().toISOString() };
}
