// The Stripe mode's books: its own records, since Stripe's rules (one charge per intent, no overcapture,
// multicapture, cancel instead of void) are not PayPal's. Amounts are integers in the currency's smallest
// unit, as Stripe writes them.

export type IntentStatus = 'requires_capture' | 'succeeded' | 'canceled';

export interface IntentRecord {
  id: string;
  amount: number;
  amountCapturable: number;
  amountReceived: number;
  currency: string;
  status: IntentStatus;
  cancellationReason: string | null;
  /** Unix seconds of the cancel (ours or the hold's lapse); null while not canceled. */
  canceledAt: number | null;
  multicapture: boolean;
  captureCount: number;
  /** Incremental authorizations tried (Stripe allows 10 per intent, declines included). */
  incrementAttempts: number;
  customer: string;
  paymentMethod: string;
  chargeId: string;
  metadata: Record<string, string>;
  created: number;
}

export interface ChargeRecord {
  id: string;
  intentId: string;
  amount: number;
  amountCaptured: number;
  amountRefunded: number;
  captured: boolean;
  disputed: boolean;
  currency: string;
  /** Unix seconds: the hold ends then if not captured. */
  captureBefore: number;
  multicapture: boolean;
  /** Whether the card allows incremental authorizations (the charge's `incremental_authorization.status`). */
  incremental: boolean;
  /** The card's brand (`visa`, `mastercard`, …). */
  brand: CardBrand;
  /** Whether the hold is an extended authorization (`extended_authorization.status` enabled; up to 30 days). */
  extended: boolean;
  /** What captures may take in all when the hold allows overcapture; null when it does not. */
  overcaptureMaximum: number | null;
  metadata: Record<string, string>;
  created: number;
}

export const cardBrands = ['visa', 'mastercard', 'amex', 'discover'] as const;
export type CardBrand = (typeof cardBrands)[number];

/**
 * A saved card (a payment method): its brand and what it allows. An intent has a feature only where it asked
 * for it and its card allows it.
 */
export interface CardRecord {
  brand: CardBrand;
  multicapture: boolean;
  incremental: boolean;
  extended: boolean;
  overcapture: boolean;
}

export interface RefundRecord {
  id: string;
  chargeId: string;
  intentId: string;
  amount: number;
  currency: string;
  status: 'succeeded' | 'failed';
  /** Why a refund failed (Stripe's failure_reason); null while it has not. */
  failureReason: string | null;
  metadata: Record<string, string>;
  created: number;
}

export interface DisputeRecord {
  id: string;
  chargeId: string;
  intentId: string;
  amount: number;
  currency: string;
  /** An inquiry (`warning_…`) withdraws no funds; a dispute withdraws them on opening. */
  status: 'needs_response' | 'won' | 'lost' | 'warning_needs_response' | 'warning_closed';
  reason: string;
  created: number;
}

/**
 * Whether the disputed charge can still be refunded (Stripe's `is_charge_refundable`): after an inquiry, which
 * withdrew nothing, and after a dispute the merchant won; not while a dispute is open, nor once it is lost.
 */
export function isChargeRefundable(dispute: DisputeRecord): boolean {
  return dispute.status === 'won' || dispute.status.startsWith('warning_');
}

export type StripeBookEvent =
  | {
      type:
        'payment_intent.amount_capturable_updated' | 'payment_intent.canceled' | 'payment_intent.succeeded';
      intent: IntentRecord;
    }
  | { type: 'charge.captured' | 'charge.expired' | 'charge.refunded'; charge: ChargeRecord }
  | {
      type: 'refund.created' | 'charge.refund.updated' | 'refund.updated' | 'refund.failed';
      refund: RefundRecord;
    }
  | {
      type:
        | 'charge.dispute.created'
        | 'charge.dispute.closed'
        | 'charge.dispute.funds_withdrawn'
        | 'charge.dispute.funds_reinstated';
      dispute: DisputeRecord;
    };
