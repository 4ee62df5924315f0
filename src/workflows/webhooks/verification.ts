import {
  ApplicationFailure,
  ChildWorkflowFailure,
  WorkflowIdReusePolicy,
  executeChild,
  log,
  proxyLocalActivities,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { PaymentsActivities } from '../../activities/payments';
import type { WebhookActivities } from '../../activities/webhooks';
import { WebhookVerificationKey } from '../search-attributes';
import {
  PAYMENT_EVENT_UNROUTED,
  paymentEventDeliveryWorkflowId,
  type SignatureCheck,
  type WebhookVerificationInput,
  type WebhookVerificationResult,
} from './definitions';
import { paymentEventDelivery } from './event-delivery';

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
  upsertSearchAttributes([{ key: WebhookVerificationKey, value: 'SUCCESS' }]);
  const verified = { verification: 'SUCCESS' as const, webhookId, receivedAt };

  const parsed = await provider.parsePaymentEvent(delivery.body);
  if (!parsed.routable) {
    const { eventId, eventType, reason } = parsed;
    return { ...verified, outcome: 'unrouted', eventId, eventType, reason };
  }
  const { event } = parsed;
  try {
    const delivered = await executeChild(paymentEventDelivery, {
      workflowId: paymentEventDeliveryWorkflowId(event.id),
      args: [event],
      // A failed delivery (no lifecycle then) may be tried again by a later transmission of the event.
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
    });
    return { ...verified, outcome: 'delivered', event, ...delivered };
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) {
      return { ...verified, outcome: 'duplicate', event };
    }
    const cause = error instanceof ChildWorkflowFailure ? error.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === PAYMENT_EVENT_UNROUTED) {
      const { id: eventId, eventType } = event;
      return { ...verified, outcome: 'unrouted', eventId, eventType, reason: cause.message };
    }
    throw error;
  }
}

function refusalOf(error: unknown): ApplicationFailure | undefined {
  const cause = error instanceof Error ? error.cause : undefined;
  return cause instanceof ApplicationFailure && cause.nonRetryable ? cause : undefined;
}
