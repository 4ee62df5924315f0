import type { ReauthorizationAmount } from './schemas';

export type PaymentsDialectName = 'spec' | 'paypal';

/** The five delivery headers a verification request is filled from. */
export type TransmissionHeaderNames = {
  auth_algo: string;
  cert_url: string;
  transmission_id: string;
  transmission_sig: string;
  transmission_time: string;
};

/**
 * What differs between the provider we were specified against and PayPal's own API, so that one client talks to either by
 * configuration alone. Paths, bodies and everything else are shared.
 */
export interface PaymentsDialect {
  name: PaymentsDialectName;
  requestIdHeader: string;
  transmissionHeaders: TransmissionHeaderNames;
  reauthorizeBody(amount: ReauthorizationAmount): unknown;
}

export const specDialect: PaymentsDialect = {
  name: 'spec',
  requestIdHeader: 'Service-Request-Id',
  transmissionHeaders: {
    auth_algo: 'SERVICE-AUTH-ALGO',
    cert_url: 'SERVICE-CERT-URL',
    transmission_id: 'SERVICE-TRANSMISSION-ID',
    transmission_sig: 'SERVICE-TRANSMISSION-SIG',
    transmission_time: 'SERVICE-TRANSMISSION-TIME',
  },
  reauthorizeBody: ({ currency, total }) => ({ amount: { currency, total } }),
};

export const paypalDialect: PaymentsDialect = {
  name: 'paypal',
  requestIdHeader: 'PayPal-Request-Id',
  transmissionHeaders: {
    auth_algo: 'PAYPAL-AUTH-ALGO',
    cert_url: 'PAYPAL-CERT-URL',
    transmission_id: 'PAYPAL-TRANSMISSION-ID',
    transmission_sig: 'PAYPAL-TRANSMISSION-SIG',
    transmission_time: 'PAYPAL-TRANSMISSION-TIME',
  },
  reauthorizeBody: ({ currency, total }) => ({ amount: { currency_code: currency, value: total } }),
};

export function paymentsDialect(name: PaymentsDialectName = 'spec'): PaymentsDialect {
  return name === 'paypal' ? paypalDialect : specDialect;
}
