import Stripe from 'stripe';
import type { SignatureCheck } from '../events';
import { deliveryBodyBytes, deliveryHeader, type WebhookDelivery } from '../webhook-delivery';

export const STRIPE_SIGNATURE_HEADER = 'Stripe-Signature';
/** Stripe's default: a signature whose `t=` is further than this from now is refused (replays). */
export const STRIPE_SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * Checks `Stripe-Signature: t=…,v1=…[,v1=…]` with the official SDK: an HMAC-SHA256 of `t.body` under one of
 * the endpoint's secrets (during a rotation Stripe signs with each, and we may hold the old and the new).
 * A `t=` further than `toleranceSeconds` from `now` is refused; 0 checks the signature alone.
 */
export function verifyStripeSignature(
  delivery: WebhookDelivery,
  secrets: readonly string[],
  now: Date = new Date(),
  toleranceSeconds: number = STRIPE_SIGNATURE_TOLERANCE_SECONDS,
): SignatureCheck {
  const header = deliveryHeader(delivery, STRIPE_SIGNATURE_HEADER);
  if (!header) return { verification_status: 'FAILURE', reason: `no ${STRIPE_SIGNATURE_HEADER} header` };
  if (secrets.length === 0)
    return { verification_status: 'FAILURE', reason: 'no endpoint secret configured' };
  const body = deliveryBodyBytes(delivery);
  let reason = '';
  for (const secret of secrets) {
    try {
      Stripe.webhooks.constructEvent(body, header, secret, toleranceSeconds, undefined, now.getTime());
      return { verification_status: 'SUCCESS' };
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
    }
  }
  return { verification_status: 'FAILURE', reason };
}

/** The header Stripe would send for `body` signed at `timestamp` (unix seconds) with each of `secrets`. */
export function stripeSignatureHeader(body: string, secrets: readonly string[], timestamp: number): string {
  const parts = secrets.map((secret) =>
    Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp }),
  );
  const signatures = parts.flatMap((part) => part.split(',').filter((item) => item.startsWith('v1=')));
  return [`t=${timestamp}`, ...signatures].join(',');
}
