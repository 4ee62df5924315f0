import { certificateOriginUrl } from '../../config';
import type { DeliveryHeaderNames, DeliveryIntake, DeliveryScreening, PaymentsProvider } from '../port';
import type { WebhookDelivery } from '../webhook-delivery';

export interface PayPalDeliveryIntakeOptions {
  /** The transmission headers of the configured dialect (SERVICE-* or PAYPAL-*). */
  headerNames: DeliveryHeaderNames;
  /** How far the signed transmission time may be from now (a captured signature replayed later is refused). */
  toleranceMs: number;
  /** WEBHOOK_CERT_HOSTS: where a certificate may come from; absent, the run alone judges the certificate. */
  certificateHosts?: readonly string[];
  /**
   * Local verification mode: the signature is checked here too, for the subscription `webhookId()` answers
   * (WEBHOOK_ID, or the listener's subscription); none answered leaves it to the run.
   */
  local?: { provider: PaymentsProvider; webhookId: () => Promise<string | undefined> };
  /** Paths its deliveries also arrive at (the API's /webhooks/payments). */
  aliasPaths?: readonly string[];
}

/** PayPal's deliveries at the path they had before the one intake, still served (its intake's alias). */
export const PAYPAL_WEBHOOK_ALIAS = '/webhooks/payments';

// Transmission ids are UUIDs; anything printable and short is accepted as a workflow id suffix.
const transmissionIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * PayPal's deliveries before any run: the transmission id is the delivery's id; refused are a garbled id, a
 * transmission time outside the tolerance, a certificate URL on a host not allowed and, in local mode, a
 * signature that does not verify. In api mode the signature is the run's to verify, through the provider.
 */
export function paypalDeliveryIntake(options: PayPalDeliveryIntakeOptions): DeliveryIntake {
  const names = options.headerNames;
  const allowedOrigins =
    options.certificateHosts &&
    new Set(options.certificateHosts.map((entry) => certificateOriginUrl(entry).origin));
  return {
    provider: 'paypal',
    headerNames: Object.values(names),
    aliasPaths: options.aliasPaths ?? [],
    async screen(delivery, receivedAt): Promise<DeliveryScreening> {
      const header = (name: string) => delivery.headers[name] as string;
      const transmissionId = header(names.transmission_id);
      if (!transmissionIdPattern.test(transmissionId)) {
        return {
          refused: `${names.transmission_id}: at most 128 letters, digits, ".", "_", ":" or "-"`,
        };
      }
      const untimely = untimelyTransmission(
        names.transmission_time,
        header(names.transmission_time),
        receivedAt,
        options.toleranceMs,
      );
      if (untimely) return { refused: untimely };
      const certUrlHeader = names.cert_url as string;
      if (allowedOrigins && !allowedOrigins.has(originOf(header(certUrlHeader)))) {
        return { refused: `${certUrlHeader}: not on an allowed certificate host` };
      }
      const signature = options.local && (await locallyVerified(options.local, delivery));
      if (signature) return { refused: signature };
      return { id: transmissionId };
    },
  };
}

/** Why the signature does not verify, or undefined when it does (or no subscription is known yet). */
async function locallyVerified(
  local: NonNullable<PayPalDeliveryIntakeOptions['local']>,
  delivery: WebhookDelivery<string>,
): Promise<string | undefined> {
  const webhookId = await local.webhookId();
  if (!webhookId) return undefined;
  const check = await local.provider.verifyDelivery(delivery, webhookId, 'local');
  return check.verification_status === 'SUCCESS' ? undefined : `signature: ${check.reason ?? 'not verified'}`;
}

function untimelyTransmission(
  header: string,
  value: string,
  receivedAt: Date,
  toleranceMs: number,
): string | undefined {
  const sent = Date.parse(value);
  if (Number.isNaN(sent)) return `${header}: not a date-time such as 2026-05-01T12:00:00Z`;
  const offsetMs = receivedAt.getTime() - sent;
  if (Math.abs(offsetMs) <= toleranceMs) return undefined;
  const when = offsetMs > 0 ? 'ago' : 'ahead';
  return `${header}: ${Math.round(Math.abs(offsetMs) / 1000)} s ${when}, outside the tolerance of ${toleranceMs / 1000} s`;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}
