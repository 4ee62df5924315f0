import { ProviderError, resourceNotFound } from './errors';
import { allEventTypes, eventTypeDescription } from './event-types';
import { webhookId } from './ids';
import type { Link } from './resources';

export type AnchorType = 'APPLICATION' | 'ACCOUNT';

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

  create(url: string, eventTypes: string[], anchorType: AnchorType = 'APPLICATION'): WebhookRecord {
    const anchored = this.list(anchorType);
    if (anchored.length >= maxWebhooksPerAnchor) {
      throw new ProviderError(400, {
        name: 'WEBHOOK_NUMBER_LIMIT_EXCEEDED',
        message: `Maximum number of webhooks (${maxWebhooksPerAnchor}) exceeded.`,
      });
    }
    this.assertUrlFree(url, anchorType);
    const record: WebhookRecord = { id: webhookId(), url, eventTypes: dedupe(eventTypes), anchorType };
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

export function webhookResource(record: WebhookRecord, baseUrl: string) {
  const self = `${baseUrl}/v1/notifications/webhooks/${record.id}`;
  const links: Link[] = [
    { href: self, rel: 'self', method: 'GET' },
    { href: self, rel: 'update', method: 'PATCH' },
    { href: self, rel: 'delete', method: 'DELETE' },
  ];
  return {
    id: record.id,
    url: record.url,
    event_types: record.eventTypes.map((name) => ({ name, description: eventTypeDescription(name) })),
    links,
  };
}
