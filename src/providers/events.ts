import type { Money } from './resources';

// The lifecycle's event vocabulary: what a verified delivery says, whatever the provider's envelope.

/** A verified provider event, as the webhook verification workflow signals it. */
export type PaymentEvent = {
  id: string;
  eventType: string;
  /**
   * The authorization the event concerns: the resource for authorization events, the parent for captures.
   * Absent for refund events, whose resource names only its capture.
   */
  authorizationId?: string;
  captureId?: string;
  /** Set for refund and reversal events: the resource is the refund, `captureId` the capture it refunds. */
  refundId?: string;
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
  /** Why a local check failed, e.g. a cert_url host outside the allow-list. */
  reason?: string;
};
