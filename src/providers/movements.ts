// The lifecycle's money as an append-only list of movements, in its own provider-neutral vocabulary. Each
// provider's adapter translates its answers and events into these; every figure of the lifecycle's state
// follows from them (src/workflows/lifecycle/ledger/figures.ts), and every append is checked there
// (invariants.ts).

/**
 * - `hold`: an authorization (or a reauthorization's new one) holds money on the payer's card.
 * - `hold-increment`: a hold raised in place (an incremental authorization): more of it held, same authorization.
 * - `release`: held money is no longer held (void, expiry, denial, the rest of a final capture, a replaced hold,
 *   what the provider says can no longer be captured).
 * - `capture`: money taken from a hold; `pending` while the provider has not completed it.
 * - `capture-completed`: a pending capture went through; moves no money of its own.
 * - `capture-declined`: a capture that did not go through; its money is held again.
 * - `refund`: money given back to the payer from a capture.
 * - `refund-returned`: a refund that failed or was canceled; its money is the merchant's again.
 * - `dispute-withdrawn`: the payer's bank took a capture's money back (chargeback, reversal).
 * - `dispute-reinstated`: a dispute the merchant won gave that money back.
 * - `dispute-inquiry`: the payer's bank asks about a capture; no money moves.
 */
export type MovementKind =
  | 'hold'
  | 'hold-increment'
  | 'release'
  | 'capture'
  | 'capture-completed'
  | 'capture-declined'
  | 'refund'
  | 'refund-returned'
  | 'dispute-withdrawn'
  | 'dispute-reinstated'
  | 'dispute-inquiry';

/** Where the lifecycle learned of a movement: its own call's answer, a provider event, a read of the provider. */
export type MovementSource = 'answer' | 'event' | 'read';

export type ReleaseReason =
  'void' | 'expiry' | 'denial' | 'final-capture' | 'order-complete' | 'replaced' | 'not-capturable';

export type Movement = {
  kind: MovementKind;
  /** The provider's id of what moved: the authorization of a hold, the capture, the refund, the dispute. */
  reference: string;
  /**
   * What the money moved from: the hold (authorization) of a capture or release, the capture of a refund or
   * dispute, the refund a refund-returned gives back.
   */
  of?: string;
  /** Integer minor units of the lifecycle's currency, as a decimal string (payloads carry no bigint). */
  minorUnits: string;
  source: MovementSource;
  /** The caller's Idempotency-Key when the movement is the answer to the lifecycle's own call. */
  key?: string;
  /** When it happened, as the provider says (or when the lifecycle learned it, when it does not). */
  at: string;
  /** A capture or refund the provider has not completed yet: its money counts already. */
  pending?: true;
  /** A capture that ends its hold: the rest of the hold is released with it. */
  final?: true;
  /** Why a hold was released. */
  reason?: ReleaseReason;
  /** When a hold ends. */
  endsAt?: string;
};

/** Whether a refund with this status came back: it failed or was canceled (PayPal's words, as the adapters map). */
export function refundCameBack(status: string | undefined): boolean {
  return status === 'FAILED' || status === 'CANCELLED';
}

/**
 * A movement the ledger refused to book, and the invariant it would have broken. One refused on append
 * (`refused`) is booked, and resolved, once the ledger can hold it: deliveries arrive out of order. One a
 * reconciliation recorded (the provider did not hold what the ledger books) is resolved when a later read finds
 * the provider holds it. A resolved one has `resolvedAt` and no longer counts as open.
 */
export type Discrepancy = {
  movement: Movement;
  invariant: string;
  at: string;
  refused?: true;
  resolvedAt?: string;
};

/**
 * A run of one of the hold's timers: what it did, and why it ran then (the hold's end, the provider's honor
 * period, the start's durations). `reference` names the movement it made, `failure` why it could not.
 */
export type TimerRun = {
  timer: 'reauthorize' | 'expiryPolicy';
  at: string;
  why: string;
  outcome: 'reauthorized' | 'captured' | 'voided' | 'expired' | 'failed';
  reference?: string;
  failure?: string;
};

/** The lifecycle's money, what it could not book, and its timers' runs (absent until one runs). */
export type Ledger = { movements: Movement[]; discrepancies: Discrepancy[]; timerRuns?: TimerRun[] };
