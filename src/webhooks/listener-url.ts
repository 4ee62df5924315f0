import type { Config } from '../config';

export const WEBHOOK_ROUTE = '/webhooks/payments';

/** Where the provider delivers: WEBHOOK_LISTENER_URL, or the local API's route on API_PORT. */
export function webhookListenerUrl(config: Pick<Config, 'WEBHOOK_LISTENER_URL' | 'API_PORT'>): string {
  return config.WEBHOOK_LISTENER_URL ?? `http://127.0.0.1:${config.API_PORT}${WEBHOOK_ROUTE}`;
}

/** Stripe's deliveries: one `Stripe-Signature` header, its own intake (src/api/stripe-webhook-routes.ts). */
export const STRIPE_WEBHOOK_ROUTE = '/webhooks/stripe';
