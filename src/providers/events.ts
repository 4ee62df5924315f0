import type { MovementKind } from './movements';
import type { Money } from './resources';

// The lifecycle's event vocabulary: what a verified delivery says, whatever the provider's envelope.

/**
 * What happened, in the lifecycle's own words; each provider's adapter maps its event names onto these.
 * `authorization.captured` says the authorization captured all it will (Stripe's payment_intent.succeeded);
 * `capture.refunded` is a refund's event, `capture.reversed` a dispute's or chargeback's.
 */
export type PaymentEventKind =
  | 'authorization.created'
  | 'authorization.voided'
  | 'authorization.expired'
  | 'authorization.captured'
  | 'authorization.denied'
  | 'capture.completed'
  | 'capture.pending'
  | 'capture.declined'
  | 'capture.refunded'
  | 'capture.reversed';

/** A verified provider event, as the webhook verification workflow signals it. */
export type PaymentEvent = {
  id: string;
  eventType: PaymentEventKind;
  /**
   * The authorization the event concerns: the resource for authorization events, the parent for captures.
   * Absent for refund events, whose resource names only its capture.
   */
  authorizationId?: string;
  captureId?: string;
  /** Set for refund and dispute events: the resource is the refund or dispute, `captureId` its capture. */
  refundId?: string;
  /**
   * What a refund or dispute event moves, in the ledger's vocabulary, as the provider's adapter translates
   * its statuses: a refund, one that came back, funds a dispute withdrew or reinstated, or an inquiry.
   */
  movement?: Extract<
    MovementKind,
    'refund' | 'refund-returned' | 'dispute-withdrawn' | 'dispute-reinstated' | 'dispute-inquiry'
  >;
  status?: string;
  amount?: Money;
  finalCapture?: boolean;
  createTime?: string;
  /**
   * What the authorization has captured in all, when the event says it (Stripe's payment_intent events:
   * `amount_received`); `captureId` then names the charge that holds its captures.
   */
  capturedTotal?: Money;
};

/** What the provider's parser made of a verified body. */
export type ParsedPaymentEvent =
  | { routable: true; event: PaymentEvent }
  | { routable: false; eventId?: string; eventType?: string; reason: string };

export type SignatureCheck = {
  verification_status: 'SUCCESS' | 'FAILURE';
  /** Why a local check failed, e.g. a certificate host outside the allow-list. */
  reason?: string;
};
