import type { WebhookDelivery } from '../../providers/webhook-delivery';
import type { ParsedPaymentEvent, PaymentEvent, SignatureCheck } from '../../providers/events';
import type { DeliveryVerifyMode } from '../../providers/port';
import type { ProviderName } from '../../provider-names';

export type { ParsedPaymentEvent, SignatureCheck };

// The webhook workflows' public contract, shared by the workflows, the activities, the API and the tools.

export const webhookVerificationWorkflowType = 'webhookVerification';
export const ensureWebhookSubscriptionWorkflowType = 'ensureWebhookSubscription';
export const removeWebhookSubscriptionWorkflowType = 'removeWebhookSubscription';

/** One verification run per transmission id; a rejected (failed) run does not block a later delivery of it. */
export function webhookVerificationWorkflowId(transmissionId: string): string {
  return `webhook-${transmissionId}`;
}

/** One subscription run at a time per listener; a concurrent ensure joins the run under way. */
export function webhookSubscriptionWorkflowId(listenerUrl: string): string {
  return `webhook-subscription-${listenerUrl}`;
}

export type WebhookVerifyMode = DeliveryVerifyMode;

/** The failure type of a rejected run; its details hold the rejected WebhookVerificationResult. */
export const WEBHOOK_DELIVERY_REJECTED = 'WebhookDeliveryRejected';

export type WebhookVerificationInput = {
  /** The listener's transmission headers and the body text, unchanged. */
  delivery: WebhookDelivery<string>;
  /** When the API received the delivery (ISO 8601). */
  receivedAt: string;
  mode: WebhookVerifyMode;
  /** The subscription's webhook id when configured (WEBHOOK_ID); otherwise the worker looks it up. */
  webhookId?: string;
  /** Whose delivery this is: its provider's webhook activities check, parse and link it (providerActivityName). */
  provider: ProviderName;
};

export type PaymentEventDelivered = {
  lifecycleWorkflowId: string;
  /** When Temporal accepted the signal, or when a closed lifecycle was found to have recorded the event. */
  signalledAt: string;
  /** Set when the closed lifecycle had already recorded the event: it was not reopened for it again. */
  alreadyRecorded?: true;
};

export type PaymentEventRouted =
  ({ routed: true } & PaymentEventDelivered) | { routed: false; reason: string };

type Verified = { verification: 'SUCCESS'; webhookId: string; receivedAt: string };

export type WebhookVerificationResult =
  | { outcome: 'rejected'; verification: 'FAILURE'; webhookId?: string; receivedAt: string; reason: string }
  | (Verified & { outcome: 'delivered'; event: PaymentEvent } & PaymentEventDelivered)
  | (Verified & { outcome: 'unrouted'; eventId?: string; eventType?: string; reason: string });

export type WebhookSubscriptionInput = {
  /** Where the provider delivers: the public URL of POST /webhooks/payments. */
  listenerUrl: string;
  /** None or empty: the application's webhooks. */
  anchorType?: string;
};

export type WebhookSubscriptionResult = {
  webhookId: string;
  action: 'created' | 'updated' | 'unchanged';
  eventTypes: string[];
  /** Event types the lifecycle handles that the provider does not offer, so not subscribed. */
  notOffered: string[];
};

export type WebhookSubscriptionRemoval = { webhookId?: string; action: 'deleted' | 'absent' };
