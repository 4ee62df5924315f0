import type { PaymentEvent } from './events';
import { refundCameBack } from './movements';
import type { Authorization, Refund } from './resources';

// Reconciliation: what a provider holds for one lifecycle, read rather than told. The lifecycle books what
// the read finds (movement source 'read') and records as a discrepancy what its ledger holds that the
// provider does not.

/** The provider references a lifecycle knows, which its provider is asked about. */
export type HoldingsRequest = {
  /** The lifecycle's authorization chain: the original and each reauthorization's new one. */
  authorizationIds: string[];
  /** The provider's ids of the captures the lifecycle knows (Stripe's: the charge its captures share). */
  captureIds: string[];
  /** The refunds the lifecycle knows, each with the provider's id of the capture it refunds. */
  refunds: { id: string; captureId: string }[];
};

export type ProviderHoldings = {
  /** The authorizations of the chain, as the provider holds them now. */
  authorizations: Authorization[];
  /**
   * What the provider holds of captures and refunds, as events of the lifecycle's vocabulary (ids `read:…`):
   * `capture.completed` (its amount what the capture took; a shared charge's, all it took), `capture.pending`,
   * `capture.declined`, and `capture.refunded` with its movement (refund, or refund-returned when it failed
   * or was canceled).
   */
  findings: PaymentEvent[];
  /** References of the request the provider does not hold: a capture or refund it does not know. */
  absent: string[];
  /** Captures the provider says are disputed (Stripe's `charge.disputed`), by the provider's capture id. */
  disputed: string[];
  /**
   * Captures the provider says are refunded, in full (`all`) or in part (`some`), without listing their
   * refunds (PayPal's `REFUNDED` and `PARTIALLY_REFUNDED`), by the provider's capture id.
   */
  refundedUnlisted: { captureId: string; refunded: 'all' | 'some' }[];
  /**
   * Authorizations the provider says are captured, in full (`all`: nothing left to capture) or in part
   * (`some`), without listing their captures (PayPal's `CAPTURED` and `PARTIALLY_CAPTURED`).
   */
  capturedUnlisted: { authorizationId: string; captured: 'all' | 'some' }[];
  /** What the read could not tell, for operators (PayPal lists no refunds of a capture). */
  unreadable: string[];
};

/** The finding's id: one per reference and status, so a read never passes for a delivered event. */
export function findingId(reference: string, status: string): string {
  return `read:${reference}:${status}`;
}

/** A read with nothing found yet. */
export function emptyHoldings(): ProviderHoldings {
  return {
    authorizations: [],
    findings: [],
    absent: [],
    disputed: [],
    refundedUnlisted: [],
    capturedUnlisted: [],
    unreadable: [],
  };
}

/** A refund as read, of the capture `captureId` (the provider's id): a refund, or one that came back. */
export function refundFinding(refund: Refund, captureId: string): PaymentEvent {
  return {
    id: findingId(refund.id, refund.status),
    eventType: 'capture.refunded',
    captureId,
    refundId: refund.id,
    movement: refundCameBack(refund.status) ? 'refund-returned' : 'refund',
    status: refund.status,
    ...(refund.amount && { amount: refund.amount }),
    ...(refund.create_time && { createTime: refund.create_time }),
  };
}
