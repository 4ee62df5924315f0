import { certificateOriginUrl } from '../config';
import type { PaymentsProvider } from '../providers/port';
import { deliveryHeader, type WebhookDelivery } from '../providers/webhook-delivery';

/** Why a delivery is refused before any run starts, or undefined when it goes on to its verification run. */
export type DeliveryScreening = (delivery: WebhookDelivery<string>) => Promise<string | undefined>;

export interface DeliveryScreeningOptions {
  /** The header that names the signing certificate (PAYPAL-CERT-URL, SERVICE-CERT-URL). */
  certUrlHeader: string;
  /** WEBHOOK_CERT_HOSTS: where a certificate may come from. */
  certificateHosts: readonly string[];
  /**
   * Local verification mode: the signature is checked here, before a run starts, for the subscription
   * `webhookId()` answers (WEBHOOK_ID, or the listener's subscription); none answered leaves it to the run.
   */
  local?: { provider: PaymentsProvider; webhookId: () => Promise<string | undefined> };
}

/**
 * The checks that cost no provider call: a certificate on a host not allowed (both modes), and in local mode
 * a signature that does not verify. A forged delivery then starts no workflow. A check that fails transiently
 * (the certificate not reachable) rejects: the listener answers 503 and the provider delivers again.
 */
export function deliveryScreening(options: DeliveryScreeningOptions): DeliveryScreening {
  const allowedOrigins = new Set(options.certificateHosts.map((entry) => certificateOriginUrl(entry).origin));
  return async (delivery) => {
    const certUrl = deliveryHeader(delivery, options.certUrlHeader) ?? '';
    if (!allowedOrigins.has(originOf(certUrl))) {
      return `${options.certUrlHeader}: not on an allowed certificate host`;
    }
    if (!options.local) return undefined;
    const webhookId = await options.local.webhookId();
    if (!webhookId) return undefined;
    const check = await options.local.provider.verifyDelivery(delivery, webhookId, 'local');
    return check.verification_status === 'SUCCESS'
      ? undefined
      : `signature: ${check.reason ?? 'not verified'}`;
  };
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

/**
 * The listener's subscription id: WEBHOOK_ID, or the provider's subscription of the listener URL, looked up at
 * most every 30 s (as the worker does).
 */
export function subscribedWebhookId(
  provider: PaymentsProvider,
  configured: string | undefined,
  listenerUrl: string | undefined,
): () => Promise<string | undefined> {
  let known: { id: string | undefined; until: number } | undefined;
  return async () => {
    if (configured) return configured;
    if (!listenerUrl || !provider.subscriptions) return undefined;
    if (known && known.until > Date.now()) return known.id;
    const { webhooks } = await provider.subscriptions.listWebhooks();
    known = { id: webhooks.find((webhook) => webhook.url === listenerUrl)?.id, until: Date.now() + 30_000 };
    return known.id;
  };
}
