import { proxyLocalActivities } from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/webhooks';
import { lifecycleWorkflowId, type PaymentEvent } from '../lifecycle/definitions';
import type { PaymentEventRouted } from './definitions';

/**
 * Calls the lifecycle waits on for the provider's event: the signal that hands it over, and the searches
 * that find the lifecycle holding a reauthorization or a capture. Local activities, retried until Temporal
 * answers: the run ends in a handful of history events, with no second workflow task for a signal command.
 */
const lifecycleEventCalls = proxyLocalActivities<WebhookActivities>({
  startToCloseTimeout: '10 seconds',
  localRetryThreshold: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * Signals a verified provider event to the lifecycle that holds its authorization: `authorization-<id>`, or,
 * for an event about a reauthorization, the lifecycle whose AuthorizationIds list that id. A refund or
 * reversal names only its capture: the lifecycle whose CaptureIds list it. The lifecycle skips an event id
 * it has already seen, so a second transmission of the same event (or a retried signal) changes nothing.
 */
export async function routePaymentEvent(event: PaymentEvent): Promise<PaymentEventRouted> {
  if (event.authorizationId === undefined) return routeByCapture(event);
  const workflowId = lifecycleWorkflowId(event.authorizationId);
  const direct = await signalTo(workflowId, event);
  if (direct) return direct;
  const holder = await lifecycleEventCalls.findLifecycleOfAuthorization(event.authorizationId);
  const viaHolder = holder ? await signalTo(holder, event) : undefined;
  return (
    viaHolder ?? {
      routed: false,
      reason: `no running lifecycle holds authorization ${event.authorizationId} (tried ${workflowId} and AuthorizationIds) for ${event.eventType} ${event.id}`,
    }
  );
}

async function routeByCapture(event: PaymentEvent): Promise<PaymentEventRouted> {
  const holder = event.captureId ? await lifecycleEventCalls.findLifecycleOfCapture(event.captureId) : null;
  const routed = holder ? await signalTo(holder, event) : undefined;
  return (
    routed ?? {
      routed: false,
      reason: `no running lifecycle holds capture ${event.captureId} (tried CaptureIds) for ${event.eventType} ${event.id}`,
    }
  );
}

async function signalTo(workflowId: string, event: PaymentEvent): Promise<PaymentEventRouted | undefined> {
  const signalledAt = await lifecycleEventCalls.signalPaymentEvent({ workflowId, event });
  return signalledAt ? { routed: true, lifecycleWorkflowId: workflowId, signalledAt } : undefined;
}
