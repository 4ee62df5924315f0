import { ApplicationFailure, log, proxyLocalActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { PaymentsActivities } from '../../activities/payments';
import type { WebhookActivities } from '../../activities/webhooks';
import { PaymentEventRoutingKey, WebhookVerificationKey } from '../search-attributes';
import type { SignatureCheck, WebhookVerificationInput, WebhookVerificationResult } from './definitions';
import { routePaymentEvent } from './event-routing';

// Local activities: short calls recorded as markers in the run's own workflow task, so a delivery costs the
// server a few history events rather than an activity task each. Retried until the provider answers.
const provider = proxyLocalActivities<PaymentsActivities & WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  localRetryThreshold: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * Verifies one webhook transmission and, when genuine, hands its event to the lifecycle it concerns.
 * A forged or unverifiable delivery ends the run as rejected, with WebhookVerification = "FAILURE".
 */
export async function webhookVerification(
  input: WebhookVerificationInput,
): Promise<WebhookVerificationResult> {
  const { delivery, receivedAt } = input;
  const webhookId = input.webhookId ?? (await provider.subscribedWebhookId());
  const rejected = (reason: string, id?: string): WebhookVerificationResult => {
    upsertSearchAttributes([{ key: WebhookVerificationKey, value: 'FAILURE' }]);
    log.warn('webhook delivery rejected', { reason });
    return { outcome: 'rejected', verification: 'FAILURE', webhookId: id, receivedAt, reason };
  };
  if (!webhookId) return rejected('no webhook subscription for this listener to verify against');

  let check: SignatureCheck;
  try {
    check =
      input.mode === 'local'
        ? await provider.verifyWebhookSignatureLocally({ delivery, webhookId })
        : await provider.verifyWebhookSignature({ delivery, webhookId });
  } catch (error) {
    // Only a refusal ends the retries: the provider (or our own check) says this delivery cannot be verified.
    const refusal = refusalOf(error);
    if (!refusal) throw error;
    return rejected(`verification refused: ${refusal.message}`, webhookId);
  }
  if (check.verification_status !== 'SUCCESS') {
    return rejected(check.reason ?? 'the signature does not match', webhookId);
  }
  const verified = { verification: 'SUCCESS' as const, webhookId, receivedAt };
  const unrouted = (reason: string, eventId?: string, eventType?: string): WebhookVerificationResult => {
    markVerified('UNROUTED');
    log.warn('verified payment event reached no lifecycle', { eventId, reason });
    return { ...verified, outcome: 'unrouted', eventId, eventType, reason };
  };

  const parsed = await provider.parsePaymentEvent(delivery.body);
  if (!parsed.routable) return unrouted(parsed.reason, parsed.eventId, parsed.eventType);
  const { event } = parsed;
  const routed = await routePaymentEvent(event);
  if (!routed.routed) return unrouted(routed.reason, event.id, event.eventType);
  markVerified('DELIVERED');
  const { lifecycleWorkflowId, signalledAt } = routed;
  return { ...verified, outcome: 'delivered', event, lifecycleWorkflowId, signalledAt };
}

/** One search-attribute change per genuine delivery, made with the run's last commands. */
function markVerified(routing: 'DELIVERED' | 'UNROUTED'): void {
  upsertSearchAttributes([
    { key: WebhookVerificationKey, value: 'SUCCESS' },
    { key: PaymentEventRoutingKey, value: routing },
  ]);
}

function refusalOf(error: unknown): ApplicationFailure | undefined {
  const cause = error instanceof Error ? error.cause : undefined;
  return cause instanceof ApplicationFailure && cause.nonRetryable ? cause : undefined;
}
