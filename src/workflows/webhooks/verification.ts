import {
  ApplicationFailure,
  log,
  proxyLocalActivities,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/webhooks';
import type { WebhookDelivery } from '../../providers/webhook-delivery';
import type { ProviderName } from '../../provider-names';
import { ofProvider } from '../lifecycle/activity-options';
import { PaymentEventRoutingKey, WebhookVerificationKey } from '../search-attributes';
import {
  WEBHOOK_DELIVERY_REJECTED,
  type SignatureCheck,
  type WebhookVerificationInput,
  type WebhookVerificationResult,
  type WebhookVerifyMode,
} from './definitions';
import { routePaymentEvent } from './event-routing';

/**
 * Calls the provider's redelivery waits on: until the run ends, the listener answers another delivery of the
 * transmission 409, and the provider delivers it again later. Local activities, recorded as markers in the
 * run's own workflow task, so a delivery costs the server a few history events rather than an activity task
 * each. Retried until the provider answers.
 */
const redeliveryCalls = proxyLocalActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  localRetryThreshold: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

// Answers about our credentials or settings (rotating credentials, a subscription being replaced), not about
// the delivery: asked again, up to this long between attempts, until they change.
const settingsRefusalStatuses = [401, 403, 404];
const MAX_SETTINGS_RETRY_MS = 10 * 60_000;

/**
 * Verifies one webhook transmission and, when genuine, hands its event to the lifecycle it concerns.
 * A forged delivery fails the run (WebhookVerification = "FAILURE"), so a later delivery of the same
 * transmission id is verified again rather than answered as a duplicate.
 */
export async function webhookVerification(
  input: WebhookVerificationInput,
): Promise<WebhookVerificationResult> {
  const { delivery, receivedAt } = input;
  // The delivery's provider checks, parses and links it; a worker without that provider leaves the run waiting.
  const providerCalls = ofProvider(redeliveryCalls, input.provider);
  const rejected = (reason: string, id?: string): never => {
    upsertSearchAttributes([{ key: WebhookVerificationKey, value: 'FAILURE' }]);
    log.warn('webhook delivery rejected', { reason });
    const result = {
      outcome: 'rejected',
      verification: 'FAILURE',
      webhookId: id,
      receivedAt,
      reason,
    } as const;
    throw ApplicationFailure.create({
      type: WEBHOOK_DELIVERY_REJECTED,
      message: reason,
      nonRetryable: true,
      details: [result],
    });
  };

  let retryDelayMs = 1_000;
  const waitForSettings = async (why: string): Promise<void> => {
    log.warn('webhook verification waits for the credentials or subscription', { why, retryDelayMs });
    await sleep(retryDelayMs);
    retryDelayMs = Math.min(retryDelayMs * 2, MAX_SETTINGS_RETRY_MS);
  };

  let webhookId = input.webhookId ?? (await providerCalls.subscribedWebhookId());
  while (!webhookId) {
    await waitForSettings('no webhook subscription for this listener to verify against');
    webhookId = await providerCalls.subscribedWebhookId();
  }

  let check: SignatureCheck | undefined;
  while (!check) {
    try {
      check = await verifySignature(input.mode, { delivery, webhookId }, input.provider);
    } catch (error) {
      // Only a refusal ends the retries: the provider (or our own check) says this delivery cannot be verified.
      const refusal = refusalOf(error);
      if (!refusal) throw error;
      const reason = `verification refused: ${refusal.message}`;
      if (!isSettingsRefusal(refusal)) rejected(reason, webhookId);
      await waitForSettings(reason);
    }
  }
  if (check.verification_status !== 'SUCCESS') {
    rejected(check.reason ?? 'the signature does not match', webhookId);
  }
  const verified = { verification: 'SUCCESS' as const, webhookId, receivedAt };
  const unrouted = (reason: string, eventId?: string, eventType?: string): WebhookVerificationResult => {
    markVerified('UNROUTED');
    log.warn('verified payment event reached no lifecycle', { eventId, reason });
    return { ...verified, outcome: 'unrouted', eventId, eventType, reason };
  };

  const parsed = await providerCalls.parsePaymentEvent(delivery.body);
  if (!parsed.routable) return unrouted(parsed.reason, parsed.eventId, parsed.eventType);
  const { event } = parsed;
  const routed = await routePaymentEvent(event, input.provider);
  if (!routed.routed) return unrouted(routed.reason, event.id, event.eventType);
  markVerified('DELIVERED');
  const { routed: _, ...delivered } = routed;
  return { ...verified, outcome: 'delivered', event, ...delivered };
}

/**
 * The two verification modes, side by side: 'api' asks the provider to verify the delivery, 'local' checks
 * its signature in the worker, by the provider's signature scheme (PaymentsProvider.verifyDelivery).
 */
function verifySignature(
  mode: WebhookVerifyMode,
  input: { delivery: WebhookDelivery<string>; webhookId: string },
  provider: ProviderName,
): Promise<SignatureCheck> {
  const calls = ofProvider(redeliveryCalls, provider);
  return mode === 'local' ? calls.verifyWebhookSignatureLocally(input) : calls.verifyWebhookSignature(input);
}

/** One search-attribute change per genuine delivery, made with the run's last commands. */
function markVerified(routing: 'DELIVERED' | 'UNROUTED'): void {
  upsertSearchAttributes([
    { key: WebhookVerificationKey, value: 'SUCCESS' },
    { key: PaymentEventRoutingKey, value: routing },
  ]);
}

function isSettingsRefusal(refusal: ApplicationFailure): boolean {
  const status = (refusal.details?.[0] as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' && settingsRefusalStatuses.includes(status);
}

/** A local activity throws its ApplicationFailure itself; an ActivityFailure would carry it as its cause. */
function refusalOf(error: unknown): ApplicationFailure | undefined {
  const failure =
    error instanceof ApplicationFailure ? error : error instanceof Error ? error.cause : undefined;
  return failure instanceof ApplicationFailure && failure.nonRetryable ? failure : undefined;
}
