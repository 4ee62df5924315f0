import type Stripe from 'stripe';
import { stripeClient, type StripeClientOptions } from './client';

export type StripeEnabledEvent = Stripe.WebhookEndpointCreateParams.EnabledEvent;

export interface StripeEndpointSubscription {
  id: string;
  url: string;
  enabledEvents: string[];
  action: 'created' | 'kept';
  /** The endpoint's signing secret: Stripe shows it only in the answer that creates the endpoint. */
  secret?: string;
}

/**
 * Subscribes `url` to `enabledEvents` through Stripe's /v1/webhook_endpoints (the official SDK), as against
 * Stripe itself: an endpoint already at `url` is kept as it is, so running it again subscribes nothing twice.
 */
export async function ensureStripeWebhookEndpoint(
  options: StripeClientOptions,
  url: string,
  enabledEvents: readonly StripeEnabledEvent[] = ['*'],
): Promise<StripeEndpointSubscription> {
  const stripe = stripeClient(options);
  for await (const endpoint of stripe.webhookEndpoints.list({ limit: 100 })) {
    if (endpoint.url === url) {
      return { id: endpoint.id, url, enabledEvents: endpoint.enabled_events, action: 'kept' };
    }
  }
  const created = await stripe.webhookEndpoints.create({ url, enabled_events: [...enabledEvents] });
  return {
    id: created.id,
    url,
    enabledEvents: created.enabled_events,
    action: 'created',
    ...(created.secret && { secret: created.secret }),
  };
}
