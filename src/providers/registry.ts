import type { Config } from '../config';
import type { DeliveryHeaderNames, PaymentsProvider } from './port';
import { PaymentsClient, paymentsClientOptionsFromConfig, type PaymentsClientOptions } from './paypal/client';
import { paymentsDialect } from './paypal/dialects';
import type { PaymentsLogger } from './paypal/http-transport';
import { paypalProvider } from './paypal/provider';

// The one place that knows every provider: the worker, the API, the benches and the tests get theirs here.

export type ProviderName = 'paypal';

/** What a provider is built from: where it answers, its credentials and mode, and whom local checks trust. */
export type ProviderSettings = PaymentsClientOptions & {
  /** Hosts a delivery's certificate may come from in local verification mode. */
  certificateHosts?: readonly string[];
};

export function createProvider(settings: ProviderSettings, name: ProviderName = 'paypal'): PaymentsProvider {
  switch (name) {
    case 'paypal':
      return paypalProvider(new PaymentsClient(settings), {
        certificateHosts: settings.certificateHosts ?? [],
      });
  }
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
