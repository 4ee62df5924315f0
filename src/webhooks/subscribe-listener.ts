import type { Config } from '../config';
import { manageSubscriptionFromConfig, type SubscriptionSettings } from './ensure-subscription';

/**
 * `npm start`'s webhook step, once the worker and the API run: ensures the provider's subscription for the
 * listener URL. The API and the worker need no restart: without WEBHOOK_ID the worker looks the
 * subscription up by that URL. A provider that refuses (e.g. a real one and an http listener) is reported,
 * and the rest of the stack keeps running.
 */
export async function subscribeListener(
  config: SubscriptionSettings & Pick<Config, 'PAYMENTS_PROVIDER'>,
): Promise<void> {
  // Only PayPal's subscriptions are managed through the provider's API; Stripe's endpoint is set in its dashboard.
  if (!config.PAYMENTS_PROVIDER.includes('paypal')) return;
  try {
    const result = await manageSubscriptionFromConfig(config);
    if (!('eventTypes' in result)) return;
    console.log(
      `Webhooks:          ${result.listenerUrl} subscribed as ${result.webhookId} (${result.action}; ${result.eventTypes.join(', ')})`,
    );
  } catch (error) {
    console.warn(
      `Webhooks:          not subscribed (${error instanceof Error ? error.message : String(error)}); ` +
        'run `npm run webhooks:subscribe` once the provider accepts the listener URL',
    );
  }
}
