import { randomBytes } from 'node:crypto';
import { invalidRequest, resourceMissing } from './errors';
import {
  isChargeRefundable,
  type CardBrand,
  type CardRecord,
  type ChargeRecord,
  type DisputeRecord,
  type IntentRecord,
  type RefundRecord,
  type StripeBookEvent,
} from './records';

/** Stripe's limit on the captures of one multicapture PaymentIntent. */
export const MAX_MULTICAPTURES = 50;
/** Stripe's limit on the incremental authorizations of one PaymentIntent, declines included. */
const MAX_INCREMENT_ATTEMPTS = 10;
const HOUR_SECONDS = 3600;
const DAY_SECONDS = 24 * HOUR_SECONDS;

export function stripeId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
}

/** What an intent asks of its card at creation; it gets each where the card allows it. */
export type CardRequests = Partial<
  Record<'multicapture' | 'incremental' | 'extended' | 'overcapture', boolean>
>;

export interface NewIntent {
  amount: number;
  currency: string;
  requests?: CardRequests;
  /** Days the hold lasts, whatever its kind, where the test says; otherwise by its kind (holdSeconds). */
  holdDays?: number;
  /** A merchant-initiated payment (off_session): a Visa one holds 4 days 18 hours. */
  offSession?: boolean;
  customer?: string;
  /** The saved card: one the sandbox knows (an earlier intent's) keeps its brand and what it allows. */
  paymentMethod?: string;
  /** The card of a new payment method (the payer's checkout); unset: a Visa card that allows nothing more. */
  card?: CardRecord;
  metadata?: Record<string, string>;
}

/** A card the sandbox has not seen: a Visa card that allows nothing more (no multicapture, overcapture, …). */
const plainCard: CardRecord = {
  brand: 'visa',
  multicapture: false,
  incremental: false,
  extended: false,
  overcapture: false,
};

/**
 * How long a hold lasts, by its kind (Stripe's "place a hold" table): 30 days for an extended authorization,
 * 4 days 18 hours for a Visa merchant-initiated one, 7 days for the others.
 */
function holdSeconds(input: NewIntent, brand: CardBrand, extended: boolean): number {
  if (input.holdDays !== undefined) return input.holdDays * DAY_SECONDS;
  if (extended) return 30 * DAY_SECONDS;
  if (input.offSession && brand === 'visa') return 4 * DAY_SECONDS + 18 * HOUR_SECONDS;
  return 7 * DAY_SECONDS;
}

/**
 * What captures of a hold that allows overcapture may take in all: the sandbox's figure, the amount and 20 %
 * (Stripe reports the figure per charge as maximum_amount_capturable).
 */
function overcaptureMaximum(amount: number): number {
  return Math.floor((amount * 6) / 5);
}

/**
 * The most one capture may take: what is held, or on a hold with overcapture what the charge's
 * maximum_amount_capturable leaves after the earlier captures.
 */
function captureLimit(intent: IntentRecord, charge: ChargeRecord): number {
  if (charge.overcaptureMaximum === null) return intent.amountCapturable;
  return charge.overcaptureMaximum - intent.amountReceived;
}

function captureLimitText(intent: IntentRecord, charge: ChargeRecord): string {
  if (charge.overcaptureMaximum === null) return `amount_capturable (${intent.amountCapturable})`;
  const captured = intent.amountReceived > 0 ? ` less the amount_received (${intent.amountReceived})` : '';
  return `maximum_amount_capturable (${charge.overcaptureMaximum})${captured}`;
}

/**
 * PaymentIntents with capture_method=manual, their charges, refunds and disputes, by Stripe's rules. Every
 * method is synchronous, so no two requests interleave inside one change.
 */
export class StripeBooks {
  private readonly intents = new Map<string, IntentRecord>();
  private readonly charges = new Map<string, ChargeRecord>();
  private readonly refunds = new Map<string, RefundRecord>();
  private readonly disputes = new Map<string, DisputeRecord>();
  private readonly cards = new Map<string, CardRecord>();

  constructor(private readonly options: { now: () => Date; onEvent: (event: StripeBookEvent) => void }) {}

  private seconds(): number {
    return Math.floor(this.options.now().getTime() / 1000);
  }

  /** A confirmed card payment held for capture (requires_capture), as the payer's checkout leaves it. */
  authorize(input: NewIntent): IntentRecord {
    const created = this.seconds();
    const paymentMethod = input.paymentMethod ?? stripeId('pm');
    const card = this.cards.get(paymentMethod) ?? input.card ?? plainCard;
    this.cards.set(paymentMethod, card);
    const requests = input.requests ?? {};
    const has = (feature: keyof CardRequests) => Boolean(requests[feature] && card[feature]);
    const intent: IntentRecord = {
      id: stripeId('pi'),
      amount: input.amount,
      amountCapturable: input.amount,
      amountReceived: 0,
      currency: input.currency,
      status: 'requires_capture',
      cancellationReason: null,
      canceledAt: null,
      multicapture: has('multicapture'),
      captureCount: 0,
      incrementAttempts: 0,
      customer: input.customer ?? stripeId('cus'),
      paymentMethod,
      chargeId: stripeId('ch'),
      metadata: input.metadata ?? {},
      created,
    };
    const charge: ChargeRecord = {
      id: intent.chargeId,
      intentId: intent.id,
      amount: input.amount,
      amountCaptured: 0,
      amountRefunded: 0,
      captured: false,
      disputed: false,
      currency: input.currency,
      captureBefore: created + holdSeconds(input, card.brand, has('extended')),
      multicapture: intent.multicapture,
      incremental: has('incremental'),
      brand: card.brand,
      extended: has('extended'),
      overcaptureMaximum: has('overcapture') ? overcaptureMaximum(input.amount) : null,
      metadata: {},
      created,
    };
    this.intents.set(intent.id, intent);
    this.charges.set(charge.id, charge);
    this.options.onEvent({ type: 'payment_intent.amount_capturable_updated', intent });
    return intent;
  }

  /** The intent as of now: a hold past its charge's capture_before has expired and is canceled. */
  intent(id: string, param = 'intent'): IntentRecord {
    const intent = this.intents.get(id);
    if (!intent) throw resourceMissing('payment_intent', id, param);
    const charge = this.charge(intent.chargeId);
    if (intent.status === 'requires_capture' && this.seconds() >= charge.captureBefore)
      this.lapse(intent, charge);
    return intent;
  }

  /** The intents (a customer's, when given), newest first, as Stripe lists them. */
  intentsOf(customer: string | undefined): IntentRecord[] {
    return [...this.intents.values()]
      .filter((intent) => customer === undefined || intent.customer === customer)
      .reverse()
      .map((intent) => this.intent(intent.id));
  }

  charge(id: string, param = 'charge'): ChargeRecord {
    const charge = this.charges.get(id);
    if (!charge) throw resourceMissing('charge', id, param);
    return charge;
  }

  refund(id: string): RefundRecord {
    const refund = this.refunds.get(id);
    if (!refund) throw resourceMissing('refund', id);
    return refund;
  }

  /** A charge's or an intent's refunds, newest first (as Stripe lists them). */
  refundsOf(filter: { chargeId?: string; intentId?: string }): RefundRecord[] {
    return [...this.refunds.values()]
      .filter(
        (refund) =>
          (filter.chargeId === undefined || refund.chargeId === filter.chargeId) &&
          (filter.intentId === undefined || refund.intentId === filter.intentId),
      )
      .reverse();
  }

  /** A charge's or an intent's disputes (or all), newest first. */
  disputesOf(filter: { chargeId?: string; intentId?: string }): DisputeRecord[] {
    return [...this.disputes.values()]
      .filter(
        (dispute) =>
          (filter.chargeId === undefined || dispute.chargeId === filter.chargeId) &&
          (filter.intentId === undefined || dispute.intentId === filter.intentId),
      )
      .reverse();
  }

  dispute(id: string): DisputeRecord {
    const dispute = this.disputes.get(id);
    if (!dispute) throw resourceMissing('dispute', id);
    return dispute;
  }

  /**
   * Captures `amountToCapture` (default: all that is capturable). Without multicapture, or with
   * final_capture, what is left is released and the intent succeeds; a multicapture intent with
   * final_capture=false stays in requires_capture for the next capture, up to 50. A final capture on a hold
   * with overcapture may take more than is held, up to the charge's maximum_amount_capturable in all.
   */
  capture(id: string, amountToCapture: number | undefined, finalCapture: boolean | undefined): IntentRecord {
    const intent = this.intent(id);
    if (intent.status !== 'requires_capture') {
      throw invalidRequest(
        `This PaymentIntent could not be captured because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`,
        'payment_intent_unexpected_state',
      );
    }
    if (finalCapture === false && !intent.multicapture) {
      throw invalidRequest(
        'final_capture can only be set to false for a PaymentIntent that supports multicapture.',
        'parameter_invalid',
        'final_capture',
      );
    }
    const charge = this.charge(intent.chargeId);
    const amount = amountToCapture ?? intent.amountCapturable;
    if (amount > captureLimit(intent, charge)) {
      throw invalidRequest(
        `The amount_to_capture (${amount}) must be less than or equal to the ${captureLimitText(intent, charge)}.`,
        'amount_too_large',
        'amount_to_capture',
      );
    }
    // Stripe's document says nothing of overcapture with multicapture: the sandbox lets only a final capture
    // go beyond what is held, since an overcapture ends the hold.
    const overcaptured = amount > intent.amountCapturable;
    if (overcaptured && finalCapture === false) {
      throw invalidRequest(
        'final_capture cannot be false for a capture beyond the amount_capturable (an overcapture).',
        'parameter_invalid',
        'final_capture',
      );
    }
    if (amount <= 0) {
      throw invalidRequest(
        'This value must be greater than or equal to 1.',
        'parameter_invalid_integer',
        'amount_to_capture',
      );
    }
    intent.captureCount += 1;
    intent.amountReceived += amount;
    charge.amountCaptured += amount;
    charge.captured = true;
    const final = finalCapture !== false || overcaptured || intent.captureCount >= MAX_MULTICAPTURES;
    intent.amountCapturable = final ? 0 : intent.amountCapturable - amount;
    if (intent.amountCapturable === 0) intent.status = 'succeeded';
    this.options.onEvent({ type: 'charge.captured', charge });
    if (intent.status === 'succeeded') this.options.onEvent({ type: 'payment_intent.succeeded', intent });
    return intent;
  }

  /**
   * Raises the hold to `amount`, the new total: only on an intent not yet captured whose card allows
   * incremental authorizations, to more than it holds, 10 attempts at most.
   */
  incrementAuthorization(id: string, amount: number): IntentRecord {
    const intent = this.intent(id);
    const charge = this.charge(intent.chargeId);
    if (intent.status !== 'requires_capture' || intent.amountReceived > 0) {
      throw invalidRequest(
        `This PaymentIntent's authorization cannot be incremented because it has a status of ${intent.status}${intent.amountReceived > 0 ? ' and was captured' : ''}.`,
        'payment_intent_unexpected_state',
      );
    }
    if (!charge.incremental || intent.incrementAttempts >= MAX_INCREMENT_ATTEMPTS) {
      throw invalidRequest(
        `This PaymentIntent is not eligible for incremental authorization${charge.incremental ? `: it had ${MAX_INCREMENT_ATTEMPTS} attempts` : ''}.`,
        'payment_intent_unexpected_state',
      );
    }
    if (amount <= intent.amount) {
      throw invalidRequest(
        `amount (${amount}) must be greater than the currently authorized amount (${intent.amount}).`,
        'parameter_invalid_integer',
        'amount',
      );
    }
    intent.incrementAttempts += 1;
    intent.amountCapturable += amount - intent.amount;
    intent.amount = amount;
    charge.amount = amount;
    if (charge.overcaptureMaximum !== null) charge.overcaptureMaximum = overcaptureMaximum(amount);
    this.options.onEvent({ type: 'payment_intent.amount_capturable_updated', intent });
    return intent;
  }

  /**
   * Releases the hold. A canceled intent cannot be canceled again, nor one that succeeded; one partly
   * captured (multicapture) is finished with final_capture instead.
   */
  cancel(id: string, reason: string | undefined): IntentRecord {
    const intent = this.intent(id);
    if (intent.status !== 'requires_capture' || intent.amountReceived > 0) {
      throw invalidRequest(
        `You cannot cancel this PaymentIntent because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be canceled: requires_payment_method, requires_capture, requires_confirmation, requires_action, processing.`,
        'payment_intent_unexpected_state',
      );
    }
    intent.status = 'canceled';
    intent.cancellationReason = reason ?? null;
    intent.canceledAt = this.seconds();
    intent.amountCapturable = 0;
    this.options.onEvent({ type: 'payment_intent.canceled', intent });
    return intent;
  }

  /** The charge's dispute, an inquiry included; undefined while none was opened. */
  disputeOf(chargeId: string): DisputeRecord | undefined {
    return [...this.disputes.values()].reverse().find((dispute) => dispute.chargeId === chargeId);
  }

  /**
   * Refunds part or all of what the charge captured and has not had refunded. A charge whose dispute is open or
   * lost is refused (`charge_disputed`); one whose dispute was won, or that had only an inquiry, is refunded.
   */
  createRefund(chargeId: string, amount: number | undefined, metadata: Record<string, string>): RefundRecord {
    const charge = this.charge(chargeId);
    const dispute = this.disputeOf(charge.id);
    if (dispute && !isChargeRefundable(dispute)) {
      throw invalidRequest(
        `Charge ${charge.id} has been charged back; refunds are not possible.`,
        'charge_disputed',
      );
    }
    const refundable = charge.amountCaptured - charge.amountRefunded;
    if (refundable === 0 && charge.amountCaptured > 0) {
      throw invalidRequest(`Charge ${charge.id} has already been refunded.`, 'charge_already_refunded');
    }
    if (refundable === 0) {
      // Stripe would release an uncaptured hold on such a refund; the sandbox asks for a cancel instead.
      throw invalidRequest(
        `Charge ${charge.id} has nothing captured to refund; cancel its PaymentIntent.`,
        'charge_not_refundable',
      );
    }
    const taken = amount ?? refundable;
    if (taken > refundable || taken <= 0) {
      throw invalidRequest(
        `Refund amount (${taken}) is greater than unrefunded amount on charge (${refundable})`,
        'amount_too_large',
        'amount',
      );
    }
    charge.amountRefunded += taken;
    const refund: RefundRecord = {
      id: stripeId('re'),
      chargeId: charge.id,
      intentId: charge.intentId,
      amount: taken,
      currency: charge.currency,
      status: 'succeeded',
      failureReason: null,
      metadata,
      created: this.seconds(),
    };
    this.refunds.set(refund.id, refund);
    // A card refund succeeds at once, so the charge is refunded (in part or in all) as it is created.
    this.options.onEvent({ type: 'refund.created', refund });
    this.options.onEvent({ type: 'charge.refunded', charge });
    this.options.onEvent({ type: 'charge.refund.updated', refund });
    return refund;
  }

  /**
   * Control: the refund fails (the card was closed, say): Stripe returns its amount to the merchant's balance,
   * so the charge counts it no longer as refunded, and sends refund.failed and refund.updated.
   */
  failRefund(id: string, reason = 'expired_or_canceled_card'): RefundRecord {
    const refund = this.refund(id);
    if (refund.status !== 'succeeded') {
      throw invalidRequest(
        `Refund ${refund.id} is ${refund.status}; only a succeeded one fails.`,
        'refund_unexpected_state',
      );
    }
    refund.status = 'failed';
    refund.failureReason = reason;
    this.charge(refund.chargeId).amountRefunded -= refund.amount;
    this.options.onEvent({ type: 'refund.failed', refund });
    this.options.onEvent({ type: 'refund.updated', refund });
    this.options.onEvent({ type: 'charge.refund.updated', refund });
    return refund;
  }

  /** Control: the cardholder disputes what the charge has left; Stripe withdraws it at once. */
  openDispute(chargeId: string, inquiry = false): DisputeRecord {
    const charge = this.charge(chargeId);
    const amount = charge.amountCaptured - charge.amountRefunded;
    if (charge.disputed || amount <= 0) {
      throw invalidRequest(`Charge ${charge.id} has nothing left to dispute.`, 'charge_not_disputable');
    }
    charge.disputed = !inquiry;
    const dispute: DisputeRecord = {
      id: stripeId('du'),
      chargeId: charge.id,
      intentId: charge.intentId,
      amount,
      currency: charge.currency,
      status: inquiry ? 'warning_needs_response' : 'needs_response',
      reason: 'fraudulent',
      created: this.seconds(),
    };
    this.disputes.set(dispute.id, dispute);
    this.options.onEvent({ type: 'charge.dispute.created', dispute });
    if (!inquiry) this.options.onEvent({ type: 'charge.dispute.funds_withdrawn', dispute });
    return dispute;
  }

  /** Control: the card network decides the dispute. */
  /** An inquiry closes as `warning_closed` whatever the outcome: it withdrew nothing. */
  closeDispute(id: string, outcome: 'won' | 'lost'): DisputeRecord {
    const dispute = this.dispute(id);
    if (dispute.status === 'warning_needs_response') {
      dispute.status = 'warning_closed';
      this.options.onEvent({ type: 'charge.dispute.closed', dispute });
      return dispute;
    }
    if (dispute.status !== 'needs_response') {
      throw invalidRequest(`Dispute ${dispute.id} is already closed.`, 'dispute_already_closed');
    }
    dispute.status = outcome;
    if (outcome === 'won') {
      this.options.onEvent({ type: 'charge.dispute.funds_reinstated', dispute });
    }
    this.options.onEvent({ type: 'charge.dispute.closed', dispute });
    return dispute;
  }

  /** Control: the hold ends at `captureBefore` (Unix seconds) instead; past, it lapses on its next read. */
  moveHoldEnd(id: string, captureBefore: number): IntentRecord {
    const intent = this.intent(id);
    if (intent.status !== 'requires_capture') {
      throw invalidRequest(
        `PaymentIntent ${intent.id} is ${intent.status}; only a held one has an end to move.`,
        'payment_intent_unexpected_state',
      );
    }
    this.charge(intent.chargeId).captureBefore = captureBefore;
    return this.intent(id);
  }

  /** Control: the hold ends now, as when capture_before passes. */
  expire(id: string): IntentRecord {
    const intent = this.intent(id);
    if (intent.status !== 'requires_capture') {
      throw invalidRequest(
        `PaymentIntent ${intent.id} is ${intent.status}; only a held one expires.`,
        'payment_intent_unexpected_state',
      );
    }
    this.lapse(intent, this.charge(intent.chargeId));
    return intent;
  }

  private lapse(intent: IntentRecord, charge: ChargeRecord): void {
    charge.captureBefore = Math.min(charge.captureBefore, this.seconds());
    if (intent.amountReceived > 0) {
      // A partly captured multicapture intent keeps what it captured; the rest is released.
      intent.status = 'succeeded';
      intent.amountCapturable = 0;
      this.options.onEvent({ type: 'payment_intent.succeeded', intent });
      return;
    }
    intent.status = 'canceled';
    intent.cancellationReason = 'automatic';
    intent.canceledAt = this.seconds();
    intent.amountCapturable = 0;
    this.options.onEvent({ type: 'charge.expired', charge });
    this.options.onEvent({ type: 'payment_intent.canceled', intent });
  }
}
