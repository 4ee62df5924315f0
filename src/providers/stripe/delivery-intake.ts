import type { DeliveryIntake, DeliveryScreening } from '../port';
import { deliveryHeader } from '../webhook-delivery';
import {
  STRIPE_SIGNATURE_HEADER,
  STRIPE_SIGNATURE_TOLERANCE_SECONDS,
  verifyStripeSignature,
} from './webhook-signature';

export interface StripeDeliveryIntakeOptions {
  /** The endpoint's signing secrets (whsec_…): during a rotation the old and the new. */
  secrets: readonly string[];
  /** How far `t=` may be from now (Stripe's 300 s unless given). */
  toleranceSeconds?: number;
}

/**
 * The subscription name a Stripe delivery's run records: Stripe signs for its endpoint's secrets, not for a
 * webhook id, so the intake names one and the run never looks a subscription up.
 */
export const STRIPE_ENDPOINT_WEBHOOK_ID = 'stripe-endpoint';

/** Checked by its signature in the worker too (no provider round trip), by Stripe's webhook activities. */
export const STRIPE_DELIVERY_VERIFICATION = { mode: 'local', webhookId: STRIPE_ENDPOINT_WEBHOOK_ID } as const;

// Stripe's event ids: evt_ and letters or digits.
const eventIdPattern = /^evt_[A-Za-z0-9]{1,124}$/;

/**
 * Stripe's deliveries before any run: one header, `Stripe-Signature: t=…,v1=…`, checked here with the official
 * SDK (the same check as the run's), so a forgery or a `t=` outside the tolerance starts no run. The delivery's
 * id is its event's `id`: Stripe sends an event again under the same id.
 */
export function stripeDeliveryIntake(options: StripeDeliveryIntakeOptions): DeliveryIntake {
  if (options.secrets.length === 0) throw new Error('the Stripe webhook intake needs an endpoint secret');
  const toleranceSeconds = options.toleranceSeconds ?? STRIPE_SIGNATURE_TOLERANCE_SECONDS;
  return {
    provider: 'stripe',
    headerNames: [STRIPE_SIGNATURE_HEADER],
    verification: STRIPE_DELIVERY_VERIFICATION,
    async screen(delivery, receivedAt): Promise<DeliveryScreening> {
      const check = verifyStripeSignature(delivery, options.secrets, receivedAt, toleranceSeconds);
      if (check.verification_status !== 'SUCCESS') {
        return { refused: `${STRIPE_SIGNATURE_HEADER}: ${check.reason ?? 'not verified'}` };
      }
      // The SDK refuses a t= too far behind; one too far ahead is refused here.
      const signedAt = Number(
        /(?:^|,)\s*t=(\d+)/.exec(deliveryHeader(delivery, STRIPE_SIGNATURE_HEADER) ?? '')?.[1],
      );
      if (signedAt - receivedAt.getTime() / 1000 > toleranceSeconds) {
        return { refused: `${STRIPE_SIGNATURE_HEADER}: Timestamp outside the tolerance zone` };
      }
      const id = (JSON.parse(delivery.body) as { id?: unknown } | null)?.id;
      if (typeof id !== 'string' || !eventIdPattern.test(id)) {
        return { refused: 'the delivery body is not a Stripe event: no id evt_…' };
      }
      return { id };
    },
  };
}
