import type { WebhookRecord, WebhookRegistry } from '../webhooks';
import { stripeId } from './books';
import { resourceMissing } from './errors';

/** What Stripe keeps of an endpoint beyond the core's subscription (its URL and event types). */
interface EndpointDetails {
  created: number;
  description: string | null;
  metadata: Record<string, string>;
  apiVersion: string | null;
}

export interface NewEndpoint {
  url: string;
  enabledEvents: string[];
  description?: string;
  metadata?: Record<string, string>;
  apiVersion?: string;
}

export const newWebhookEndpointId = () => stripeId('we');

/**
 * Stripe's webhook endpoints over the core's subscriptions: the core's registry holds each one's URL and
 * event types, so the deliveries reach it; this keeps what Stripe shows of it besides. Every endpoint's
 * deliveries are signed with the sandbox's signing secrets, so `secret` (shown on creation only) is the
 * newest of them rather than one per endpoint.
 */
export class StripeWebhookEndpoints {
  private readonly details = new Map<string, EndpointDetails>();

  constructor(
    private readonly webhooks: WebhookRegistry,
    private readonly options: { now: () => Date; signingSecret: string },
  ) {}

  create(input: NewEndpoint): Record<string, unknown> {
    const record = this.webhooks.create(input.url, input.enabledEvents);
    this.details.set(record.id, {
      created: this.seconds(),
      description: input.description ?? null,
      metadata: input.metadata ?? {},
      apiVersion: input.apiVersion ?? null,
    });
    return { ...this.resource(record), secret: this.options.signingSecret };
  }

  retrieve(id: string): Record<string, unknown> {
    return this.resource(this.record(id));
  }

  /** Newest first, as Stripe lists them. */
  list(): Record<string, unknown>[] {
    return this.webhooks
      .all()
      .reverse()
      .map((record) => this.resource(record));
  }

  delete(id: string): Record<string, unknown> {
    this.record(id);
    this.webhooks.delete(id);
    this.details.delete(id);
    return { id, object: 'webhook_endpoint', deleted: true };
  }

  /**
   * Stripe's `webhook_endpoint`, without its secret. A subscription the control API made gets its details
   * when first shown, which is its creation's answer.
   */
  resource(record: WebhookRecord): Record<string, unknown> {
    let details = this.details.get(record.id);
    if (!details) {
      details = { created: this.seconds(), description: null, metadata: {}, apiVersion: null };
      this.details.set(record.id, details);
    }
    return {
      id: record.id,
      object: 'webhook_endpoint',
      api_version: details.apiVersion,
      application: null,
      created: details.created,
      description: details.description,
      enabled_events: record.eventTypes,
      livemode: false,
      metadata: details.metadata,
      status: 'enabled',
      url: record.url,
    };
  }

  private record(id: string): WebhookRecord {
    if (!this.webhooks.has(id)) throw resourceMissing('webhook_endpoint', id);
    return this.webhooks.get(id);
  }

  private seconds(): number {
    return Math.floor(this.options.now().getTime() / 1000);
  }
}
