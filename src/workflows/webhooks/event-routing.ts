import { proxyLocalActivities } from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/webhooks';
import type { ProviderName } from '../../provider-names';
import { ofProvider } from '../lifecycle/activity-options';
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
 * reversal names only its capture: the provider's capture names its authorization, which leads to the
 * lifecycle as above, reopened when it has closed (refunds and chargebacks come weeks later). The lifecycle
 * skips an event id it has already seen, so a second transmission of the same event (or a retried signal)
 * changes nothing. The capture's link is asked of the event's provider.
 */
export async function routePaymentEvent(
  event: PaymentEvent,
  provider: ProviderName,
): Promise<PaymentEventRouted> {
  if (event.authorizationId === undefined) return routeByCaptureLink(event, provider);
  const routed = await routeToRunning(event.authorizationId, event);
  return (
    routed ?? {
      routed: false,
      reason: `no running lifecycle holds authorization ${event.authorizationId} (tried ${lifecycleWorkflowId(event.authorizationId)} and AuthorizationIds) for ${event.eventType} ${event.id}`,
    }
  );
}

/** The running lifecycle of the authorization: its own, or the one that reauthorized into it. */
async function routeToRunning(
  authorizationId: string,
  event: PaymentEvent,
): Promise<PaymentEventRouted | undefined> {
  const direct = await signalTo(lifecycleWorkflowId(authorizationId), event);
  if (direct) return direct;
  const holder = await lifecycleEventCalls.findLifecycleOfAuthorization(authorizationId);
  return holder ? await signalTo(holder, event) : undefined;
}

/**
 * A refund or reversal: to the lifecycle of the authorization its capture was taken from, running or
 * reopened.
 */
async function routeByCaptureLink(event: PaymentEvent, provider: ProviderName): Promise<PaymentEventRouted> {
  const authorizationId = event.captureId
    ? await ofProvider(lifecycleEventCalls, provider).authorizationOfCapture(event.captureId)
    : null;
  if (!authorizationId) {
    return {
      routed: false,
      reason: `capture ${event.captureId} is linked to no authorization at its provider for ${event.eventType} ${event.id}`,
    };
  }
  const running = await routeToRunning(authorizationId, event);
  return running ?? (await lifecycleEventCalls.reopenLifecycleForEvent({ authorizationId, event }));
}

async function signalTo(workflowId: string, event: PaymentEvent): Promise<PaymentEventRouted | undefined> {
  const signalledAt = await lifecycleEventCalls.signalPaymentEvent({ workflowId, event });
  return signalledAt ? { routed: true, lifecycleWorkflowId: workflowId, signalledAt } : undefined;
}
