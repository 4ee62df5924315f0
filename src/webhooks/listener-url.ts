import type { Config } from '../config';
import { PAYPAL_WEBHOOK_ALIAS } from '../providers/registry';

/** Every provider's deliveries: POST /webhooks/<provider> (src/api/webhook-routes.ts). */
export const WEBHOOK_ROUTE_PATTERN = '/webhooks/:provider';

/** Where `provider`'s deliveries arrive. */
export function webhookRoute(provider: string): string {
  return `/webhooks/${provider}`;
}

/** PayPal's deliveries at the path they had before the one intake, still served (its intake's alias). */
export const WEBHOOK_ROUTE = PAYPAL_WEBHOOK_ALIAS;

/** Stripe's deliveries. */
export const STRIPE_WEBHOOK_ROUTE = webhookRoute('stripe');

/** Where the provider delivers: WEBHOOK_LISTENER_URL, or the local API's route on API_PORT. */
export function webhookListenerUrl(config: Pick<Config, 'WEBHOOK_LISTENER_URL' | 'API_PORT'>): string {
  return config.WEBHOOK_LISTENER_URL ?? `http://127.0.0.1:${config.API_PORT}${WEBHOOK_ROUTE}`;
}
