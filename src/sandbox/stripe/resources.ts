import {
  isChargeRefundable,
  type ChargeRecord,
  type DisputeRecord,
  type IntentRecord,
  type RefundRecord,
} from './records';

// The Stripe mode's records as Stripe's JSON (API version 2026-08-26): the fields Stripe's schema requires
// and the ones a manual-capture integration reads.

export const STRIPE_API_VERSION = '2026-08-26.dahlia';

export function chargeResource(charge: ChargeRecord): Record<string, unknown> {
  return {
    id: charge.id,
    object: 'charge',
    amount: charge.amount,
    amount_captured: charge.amountCaptured,
    amount_refunded: charge.amountRefunded,
    billing_details: { address: null, email: null, name: null, phone: null },
    captured: charge.captured,
    created: charge.created,
    currency: charge.currency,
    disputed: charge.disputed,
    livemode: false,
    metadata: charge.metadata,
    paid: true,
    payment_intent: charge.intentId,
    payment_method_details: {
      type: 'card',
      card: {
        brand: charge.brand,
        capture_before: charge.captureBefore,
        exp_month: 12,
        exp_year: 2030,
        last4: '4242',
        extended_authorization: { status: charge.extended ? 'enabled' : 'disabled' },
        incremental_authorization: { status: charge.incremental ? 'available' : 'unavailable' },
        multicapture: { status: charge.multicapture ? 'available' : 'unavailable' },
        overcapture:
          charge.overcaptureMaximum === null
            ? { maximum_amount_capturable: charge.amount, status: 'unavailable' }
            : { maximum_amount_capturable: charge.overcaptureMaximum, status: 'available' },
      },
    },
    refunded: charge.amountCaptured > 0 && charge.amountRefunded >= charge.amountCaptured,
    status: 'succeeded',
  };
}

/** The intent; its latest_charge expanded when the request asked for it. */
export function paymentIntentResource(
  intent: IntentRecord,
  latestCharge: ChargeRecord | undefined,
): Record<string, unknown> {
  return {
    id: intent.id,
    object: 'payment_intent',
    amount: intent.amount,
    amount_capturable: intent.amountCapturable,
    amount_received: intent.amountReceived,
    canceled_at: intent.canceledAt,
    cancellation_reason: intent.cancellationReason,
    capture_method: 'manual',
    confirmation_method: 'automatic',
    created: intent.created,
    currency: intent.currency,
    customer: intent.customer,
    last_payment_error: null,
    latest_charge: latestCharge ? chargeResource(latestCharge) : intent.chargeId,
    livemode: false,
    metadata: intent.metadata,
    payment_method: intent.paymentMethod,
    payment_method_options: {
      card: { request_multicapture: intent.multicapture ? 'if_available' : 'never' },
    },
    payment_method_types: ['card'],
    status: intent.status,
  };
}

export function refundResource(refund: RefundRecord): Record<string, unknown> {
  return {
    id: refund.id,
    object: 'refund',
    amount: refund.amount,
    charge: refund.chargeId,
    created: refund.created,
    currency: refund.currency,
    ...(refund.failureReason !== null && { failure_reason: refund.failureReason }),
    metadata: refund.metadata,
    payment_intent: refund.intentId,
    status: refund.status,
  };
}

export function disputeResource(dispute: DisputeRecord): Record<string, unknown> {
  return {
    id: dispute.id,
    object: 'dispute',
    amount: dispute.amount,
    balance_transactions: [],
    charge: dispute.chargeId,
    created: dispute.created,
    currency: dispute.currency,
    enhanced_eligibility_types: [],
    evidence: { enhanced_evidence: {} },
    evidence_details: {
      due_by: dispute.created + 7 * 86_400,
      enhanced_eligibility: {},
      has_evidence: false,
      past_due: false,
      submission_count: 0,
    },
    is_charge_refundable: isChargeRefundable(dispute),
    livemode: false,
    metadata: {},
    payment_intent: dispute.intentId,
    reason: dispute.reason,
    status: dispute.status,
  };
}
