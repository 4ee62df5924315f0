// Where a provider's captures of one authorization share one id (Stripe's multicapture: its charge), the
// lifecycle gives each capture an id of its own, and the provider's adapter says how the shared id's answers,
// refunds and disputes fall on them. Amounts are minor units of the lifecycle's currency.

/** One of the lifecycle's captures into a shared provider id, as the adapter's translation sees it. */
export type SharedCapture = {
  /** The lifecycle's own id of the capture. */
  id: string;
  captured: bigint;
  /** What its refunds and reversals gave back. */
  refunded: bigint;
  /** Learnt from the shared id's captured total, not answered to the lifecycle's own capture. */
  learned: boolean;
};

/** What the answer of the lifecycle's own capture proves about captures learnt before it. */
export type TakeBack =
  /** The learnt capture of the answer's amount was this one: the answer takes its id. */
  | { becomes: string }
  /** These learnt captures were (in part) this one: each is taken back, and `kept` of it learnt again. */
  | { takenBack: Array<{ id: string; kept: bigint }> };

export type SharedCaptureIds = {
  /** The provider's id of one of the lifecycle's captures: what a refund of it is sent to. */
  providerIdOf(captureId: string): string;
  /** The lifecycle's id of the next capture into `providerId`, given the capture ids its ledger booked. */
  nextId(providerId: string, booked: string[]): string;
  /** What the answer of the lifecycle's own capture of `amount` takes back of the learnt captures, oldest first. */
  takeBack(learned: SharedCapture[], amount: bigint): TakeBack;
  /**
   * How a refund of `amount` of the shared id, naming none of its captures, falls on them (oldest first);
   * undefined when they cannot take it all (a capture is still to be learnt).
   */
  refundPortions(
    captures: SharedCapture[],
    amount: bigint,
  ): Array<{ id: string; amount: bigint }> | undefined;
  /**
   * The capture a refund or dispute of the shared id concerns when the lifecycle sent none of that amount:
   * the only one, unless what it gives back is more than that one can give (another is still to be learnt).
   */
  captureOfRefund(captures: SharedCapture[], givesBack: bigint): string | undefined;
};
