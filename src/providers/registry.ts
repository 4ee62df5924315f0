import type { Config } from '../config';
import type { DeliveryHeaderNames, DeliveryIntake, PaymentsProvider } from './port';
import { PAYPAL_WEBHOOK_ALIAS, paypalDeliveryIntake } from './paypal/delivery-intake';
import { stripeDeliveryIntake } from './stripe/delivery-intake';
import { subscriptionLookup } from './subscription-lookup';
import {
  PayPalClient,
  paypalClientOptionsFromConfig,
  type PayPalClientOptions,
  type PayPalClientSettings,
} from './paypal/client';
import { paymentsDialect } from './paypal/dialects';
import type { PaymentsLogger } from './paypal/http-transport';
import { paypalProvider } from './paypal/provider';
import type { ProviderName } from '../provider-names';
import { stripeEndpoint } from './stripe/client';
import { stripeProvider } from './stripe/provider';
import { ensureStripeWebhookEndpoint, type StripeEndpointSubscription } from './stripe/webhook-endpoints';

export {
  PAYPAL_WEBHOOK_ALIAS,
  paypalDeliveryIntake,
  type PayPalDeliveryIntakeOptions,
} from './paypal/delivery-intake';
export { stripeDeliveryIntake, type StripeDeliveryIntakeOptions } from './stripe/delivery-intake';

// The one place that knows every provider: the worker, the API, the benches and the tests get theirs here.

export type { ProviderName } from '../provider-names';

/** PayPal's settings as configured, with the hosts its deliveries' certificates may come from. */
type PayPalProviderConfig = PayPalClientSettings & Pick<Config, 'WEBHOOK_CERT_HOSTS'>;
type StripeProviderSettings = Pick<
  Config,
  | 'STRIPE_API_KEY'
  | 'STRIPE_BASE_URL'
  | 'STRIPE_MULTICAPTURE'
  | 'STRIPE_WEBHOOK_SECRETS'
  | 'PAYMENTS_TIMEOUT_MS'
>;

/** What PayPal's provider is built from: where it answers, its credentials and mode, and whom local checks trust. */
export type PayPalProviderSettings = PayPalClientOptions & {
  /** Hosts a delivery's certificate may come from in local verification mode. */
  certificateHosts?: readonly string[];
};

/** PayPal's provider from its settings (Stripe's: stripeProviderFromConfig, stripeProvider). */
export function createPayPalProvider(settings: PayPalProviderSettings): PaymentsProvider {
  return paypalProvider(new PayPalClient(settings), { certificateHosts: settings.certificateHosts ?? [] });
}

/** Stripe's provider as configured; `baseUrl` (e.g. the embedded sandbox's) wins over STRIPE_BASE_URL. */
export function stripeProviderFromConfig(config: StripeProviderSettings, baseUrl?: string): PaymentsProvider {
  const url = baseUrl ?? config.STRIPE_BASE_URL;
  return stripeProvider({
    apiKey: config.STRIPE_API_KEY,
    ...(url && stripeEndpoint(url)),
    timeoutMs: config.PAYMENTS_TIMEOUT_MS,
    multicapture: config.STRIPE_MULTICAPTURE,
    webhookSecrets: config.STRIPE_WEBHOOK_SECRETS,
  });
}

/**
 * Stripe's webhook endpoint for `listenerUrl` (every event) at `baseUrl`, subscribed through
 * /v1/webhook_endpoints by Stripe's adapter; one already there is kept.
 */
export function subscribeStripeEndpoint(
  baseUrl: string,
  apiKey: string,
  listenerUrl: string,
): Promise<StripeEndpointSubscription> {
  return ensureStripeWebhookEndpoint({ apiKey, ...stripeEndpoint(baseUrl) }, listenerUrl);
}

/** Every provider PAYMENTS_PROVIDER names, in its order; `baseUrls` win over each one's configured URL. */
export function providersFromConfig(
  config: PayPalProviderConfig & StripeProviderSettings & Pick<Config, 'PAYMENTS_PROVIDER'>,
  baseUrls: Partial<Record<ProviderName, string>> = {},
  logger?: PaymentsLogger,
): PaymentsProvider[] {
  return config.PAYMENTS_PROVIDER.map((name) =>
    name === 'stripe'
      ? stripeProviderFromConfig(config, baseUrls.stripe)
      : paypalProviderFromConfig(config, baseUrls.paypal, logger),
  );
}

/** PayPal's provider as configured; `baseUrl` (e.g. the embedded sandbox's) wins over the config. */
export function paypalProviderFromConfig(
  config: PayPalProviderConfig,
  baseUrl?: string,
  logger?: PaymentsLogger,
): PaymentsProvider {
  return createPayPalProvider({
    ...paypalClientOptionsFromConfig(config, baseUrl, logger),
    certificateHosts: config.WEBHOOK_CERT_HOSTS,
  });
}

/** The delivery headers the configured provider signs with, for the webhook intake. */
export function deliveryHeadersFromConfig(config: Pick<Config, 'PAYPAL_DIALECT'>): DeliveryHeaderNames {
  return paymentsDialect(config.PAYPAL_DIALECT).transmissionHeaders;
}

type DeliveryIntakeConfig = PayPalProviderConfig &
  Pick<
    Config,
    | 'PAYPAL_DIALECT'
    | 'WEBHOOK_TRANSMISSION_TOLERANCE_MS'
    | 'WEBHOOK_VERIFY_MODE'
    | 'WEBHOOK_ID'
    | 'STRIPE_WEBHOOK_SECRETS'
  >;

/**
 * The intake of `name`'s deliveries as configured. In local verification mode PayPal's checks the signature at
 * the intake too, so a forged delivery starts no run, for WEBHOOK_ID or else the subscription of the
 * listener's URL, looked up at PayPal; its deliveries also arrive at PAYPAL_WEBHOOK_ALIAS.
 */
export function deliveryIntakeFromConfig(
  name: ProviderName,
  config: DeliveryIntakeConfig,
  listenerUrl: string,
): DeliveryIntake {
  if (name === 'stripe') return stripeDeliveryIntake({ secrets: config.STRIPE_WEBHOOK_SECRETS });
  const provider = config.WEBHOOK_VERIFY_MODE === 'local' ? paypalProviderFromConfig(config) : undefined;
  const lookup = provider && subscriptionLookup(provider, listenerUrl);
  return paypalDeliveryIntake({
    headerNames: deliveryHeadersFromConfig(config),
    toleranceMs: config.WEBHOOK_TRANSMISSION_TOLERANCE_MS,
    certificateHosts: config.WEBHOOK_CERT_HOSTS,
    aliasPaths: [PAYPAL_WEBHOOK_ALIAS],
    ...(provider &&
      lookup && { local: { provider, webhookId: async () => config.WEBHOOK_ID ?? (await lookup()) } }),
  });
}
