import type Stripe from 'stripe';
import type {
  Authorization,
  AuthorizationStatus,
  CaptureStatus,
  PaymentCapture,
  Refund,
  RefundStatus,
} from '../resources';
import { fromStripeAmount } from './money';

// Stripe's PaymentIntent, Charge and Refund mapped onto the lifecycle's vocabulary. The authorization is the
// PaymentIntent; its capture is the Charge (one per intent; a multicapture intent captures into it
// repeatedly); a refund is Stripe's refund of that charge.

/** Unix seconds, as Stripe writes times, as the lifecycle's ISO 8601 text. */
export function isoTime(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString();
}

/** The intent's latest charge, when it was expanded into the answer. */
export function latestCharge(intent: Stripe.PaymentIntent): Stripe.Charge | undefined {
  const charge = intent.latest_charge;
  return charge !== null && typeof charge === 'object' ? charge : undefined;
}

function authorizationStatus(intent: Stripe.PaymentIntent): AuthorizationStatus {
  switch (intent.status) {
    case 'requires_capture':
      return intent.amount_received > 0 ? 'PARTIALLY_CAPTURED' : 'CREATED';
    case 'succeeded':
      return intent.amount_received < intent.amount ? 'PARTIALLY_CAPTURED' : 'CAPTURED';
    case 'canceled':
      if (intent.amount_received > 0) return 'PARTIALLY_CAPTURED';
      return intent.cancellation_reason === 'expired' || intent.cancellation_reason === 'automatic'
        ? 'EXPIRED'
        : 'VOIDED';
    case 'requires_payment_method':
      return intent.last_payment_error ? 'DENIED' : 'PENDING';
    default:
      return 'PENDING';
  }
}

/**
 * The PaymentIntent as the lifecycle's authorization. Its hold ends at the charge's `capture_before`; what
 * the card allows (multicapture, incremental and extended authorization) passes through as
 * `card_capabilities`, as Stripe reports it on the charge.
 */
export function authorizationOf(intent: Stripe.PaymentIntent): Authorization {
  const charge = latestCharge(intent);
  const card = charge?.payment_method_details?.card ?? undefined;
  const metadata = intent.metadata ?? {};
  return {
    id: intent.id,
    status: authorizationStatus(intent),
    amount: fromStripeAmount(intent.amount, intent.currency),
    captured_amount: fromStripeAmount(intent.amount_received, intent.currency),
    amount_capturable: fromStripeAmount(intent.amount_capturable, intent.currency),
    ...(metadata.invoice_id && { invoice_id: metadata.invoice_id }),
    ...(metadata.custom_id && { custom_id: metadata.custom_id }),
    create_time: isoTime(intent.created),
    ...(card?.capture_before && { expiration_time: isoTime(card.capture_before) }),
    ...(charge && { capture_id: charge.id }),
    ...(card?.overcapture?.status === 'available' && {
      capture_maximum: fromStripeAmount(card.overcapture.maximum_amount_capturable, intent.currency),
    }),
    ...(card && {
      card_capabilities: {
        multicapture: card.multicapture?.status ?? 'unavailable',
        incremental_authorization: card.incremental_authorization?.status ?? 'unavailable',
        extended_authorization: card.extended_authorization?.status ?? 'disabled',
      },
    }),
  };
}

function captureStatus(charge: Stripe.Charge): CaptureStatus {
  if (charge.status === 'failed') return 'FAILED';
  if (charge.status === 'pending' || !charge.captured) return 'PENDING';
  if (charge.amount_refunded === 0) return 'COMPLETED';
  return charge.amount_refunded >= charge.amount_captured ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
}

/**
 * A charge as the lifecycle's capture. `amount` is what this capture took when the caller knows it (a
 * capture's answer); otherwise all the charge has captured. `final_capture` is false only while the intent
 * still holds money for further captures.
 */
export function captureOf(
  charge: Stripe.Charge,
  options: { amount?: number; finalCapture?: boolean } = {},
): PaymentCapture {
  const intentId =
    typeof charge.payment_intent === 'string' ? charge.payment_intent : charge.payment_intent?.id;
  const metadata = charge.metadata ?? {};
  return {
    id: charge.id,
    ...(intentId && { authorization_id: intentId }),
    status: captureStatus(charge),
    amount: fromStripeAmount(options.amount ?? charge.amount_captured, charge.currency),
    ...(metadata.invoice_id && { invoice_id: metadata.invoice_id }),
    final_capture: options.finalCapture ?? true,
    create_time: isoTime(charge.created),
  };
}

function refundStatus(refund: Stripe.Refund): RefundStatus {
  switch (refund.status) {
    case 'succeeded':
      return 'COMPLETED';
    case 'failed':
      return 'FAILED';
    case 'canceled':
      return 'CANCELLED';
    default:
      return 'PENDING';
  }
}

/** A Stripe refund as the lifecycle's; `capture_id` names the charge it refunds. */
export function refundOf(refund: Stripe.Refund): Refund {
  const chargeId = typeof refund.charge === 'string' ? refund.charge : refund.charge?.id;
  const metadata = refund.metadata ?? {};
  return {
    id: refund.id,
    status: refundStatus(refund),
    amount: fromStripeAmount(refund.amount, refund.currency),
    ...(chargeId && { capture_id: chargeId }),
    ...(metadata.invoice_id && { invoice_id: metadata.invoice_id }),
    create_time: isoTime(refund.created),
  };
}
