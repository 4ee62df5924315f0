import type { Config } from '../config';
import type { DeliveryHeaderNames, PaymentsProvider } from './port';
import { PaymentsClient, paymentsClientOptionsFromConfig, type PaymentsClientOptions } from './paypal/client';
import { paymentsDialect } from './paypal/dialects';
import type { PaymentsLogger } from './paypal/http-transport';
import { paypalProvider } from './paypal/provider';
import type { ProviderName } from '../provider-names';
import { stripeEndpoint } from './stripe/client';
import { stripeProvider } from './stripe/provider';

// The one place that knows every provider: the worker, the API, the benches and the tests get theirs here.

export type { ProviderName } from '../provider-names';

/** What a provider is built from: where it answers, its credentials and mode, and whom local checks trust. */
export type ProviderSettings = PaymentsClientOptions & {
  /** Hosts a delivery's certificate may come from in local verification mode. */
  certificateHosts?: readonly string[];
};

/** PayPal's provider (Stripe's is built from its own settings: stripeFromConfig, stripeProvider). */
export function createProvider(settings: ProviderSettings, name: 'paypal' = 'paypal'): PaymentsProvider {
  switch (name) {
    case 'paypal':
      return paypalProvider(new PaymentsClient(settings), {
        certificateHosts: settings.certificateHosts ?? [],
      });
  }
}

/** Stripe's provider as configured; `baseUrl` (e.g. the embedded sandbox's) wins over STRIPE_BASE_URL. */
export function stripeFromConfig(config: Config, baseUrl?: string): PaymentsProvider {
  const url = baseUrl ?? config.STRIPE_BASE_URL;
  return stripeProvider({
    apiKey: config.STRIPE_API_KEY,
    ...(url && stripeEndpoint(url)),
    timeoutMs: config.PAYMENTS_TIMEOUT_MS,
    multicapture: config.STRIPE_MULTICAPTURE,
    webhookSecrets: config.STRIPE_WEBHOOK_SECRETS,
  });
}

/** Every provider PAYMENTS_PROVIDER names, in its order; `baseUrls` win over each one's configured URL. */
export function providersFromConfig(
  config: Config,
  baseUrls: Partial<Record<ProviderName, string>> = {},
  logger?: PaymentsLogger,
): PaymentsProvider[] {
  return config.PAYMENTS_PROVIDER.map((name) =>
    name === 'stripe'
      ? stripeFromConfig(config, baseUrls.stripe)
      : providerFromConfig(config, baseUrls.paypal, logger),
  );
}

/** The configured provider; `baseUrl` (e.g. the embedded sandbox's) wins over the config. */
export function providerFromConfig(
  config: Config,
  baseUrl?: string,
  logger?: PaymentsLogger,
): PaymentsProvider {
  return createProvider({
    ...paymentsClientOptionsFromConfig(config, baseUrl, logger),
    certificateHosts: config.WEBHOOK_CERT_HOSTS,
  });
}

/** The delivery headers the configured provider signs with, for the webhook intake. */
export function deliveryHeadersFromConfig(config: Config): DeliveryHeaderNames {
  return paymentsDialect(config.PAYMENTS_DIALECT).transmissionHeaders;
}
