import { z } from 'zod';
import { ProviderError, resourceNotFound } from './errors';
import { webhookId } from './ids';

/** Subscribing to `*` means every event type, present and future. */
export const allEventTypes = '*';

export const anchorTypeSchema = z.enum(['APPLICATION', 'ACCOUNT']);
export type AnchorType = z.infer<typeof anchorTypeSchema>;

// PayPal insists on https; the sandbox also takes http so a listener on localhost can subscribe.
export const webhookUrlSchema = z.url({ protocol: /^https?$/ }).max(2048);
export const eventTypeListSchema = z
  .array(z.object({ name: z.string().min(1) }))
  .min(1)
  .max(500);
export type EventTypeList = z.infer<typeof eventTypeListSchema>;
/** A subscription's body: the same at the provider's webhook route and the control API's. */
export const webhookSubscriptionSchema = z.object({
  url: webhookUrlSchema,
  event_types: eventTypeListSchema,
});

export interface WebhookRecord {
  id: string;
  url: string;
  eventTypes: string[];
  anchorType: AnchorType;
}

export interface WebhookChanges {
  url?: string;
  eventTypes?: string[];
}

/** PayPal's limit per application (and per account). */
const maxWebhooksPerAnchor = 10;

/** Webhook subscriptions. Webhooks created through the API belong to the application. */
export class WebhookRegistry {
  private readonly webhooks = new Map<string, WebhookRecord>();

  /** `newId`: the provider's id for a new subscription (PayPal's 24 characters, Stripe's `we_…`). */
  constructor(private readonly newId: () => string = webhookId) {}

  create(url: string, eventTypes: string[], anchorType: AnchorType = 'APPLICATION'): WebhookRecord {
    const anchored = this.list(anchorType);
    if (anchored.length >= maxWebhooksPerAnchor) {
      throw new ProviderError(400, {
        name: 'WEBHOOK_NUMBER_LIMIT_EXCEEDED',
        message: `Maximum number of webhooks (${maxWebhooksPerAnchor}) exceeded.`,
      });
    }
    this.assertUrlFree(url, anchorType);
    const record: WebhookRecord = { id: this.newId(), url, eventTypes: dedupe(eventTypes), anchorType };
    this.webhooks.set(record.id, record);
    return record;
  }

  get(id: string): WebhookRecord {
    const record = this.webhooks.get(id);
    if (!record) throw resourceNotFound(`Specified resource ID does not exist: webhook ${id}.`);
    return record;
  }

  /** Applies all changes or none. */
  update(id: string, changes: WebhookChanges): WebhookRecord {
    const record = this.get(id);
    if (changes.url !== undefined && changes.url !== record.url)
      this.assertUrlFree(changes.url, record.anchorType);
    if (changes.url !== undefined) record.url = changes.url;
    if (changes.eventTypes !== undefined) record.eventTypes = dedupe(changes.eventTypes);
    return record;
  }

  delete(id: string): void {
    this.get(id);
    this.webhooks.delete(id);
  }

  list(anchorType: AnchorType): WebhookRecord[] {
    return [...this.webhooks.values()].filter((record) => record.anchorType === anchorType);
  }

  /** Every subscription, in the order they were made. */
  all(): WebhookRecord[] {
    return [...this.webhooks.values()];
  }

  has(id: string): boolean {
    return this.webhooks.has(id);
  }

  subscribersOf(eventType: string): WebhookRecord[] {
    return [...this.webhooks.values()].filter(
      (record) => record.eventTypes.includes(eventType) || record.eventTypes.includes(allEventTypes),
    );
  }

  private assertUrlFree(url: string, anchorType: AnchorType): void {
    if (this.list(anchorType).some((record) => record.url === url)) {
      throw new ProviderError(400, {
        name: 'WEBHOOK_URL_ALREADY_EXISTS',
        message: 'Webhook URL already exists.',
      });
    }
  }
}

function dedupe(names: string[]): string[] {
  return [...new Set(names)];
}
