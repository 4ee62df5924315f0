import type { LifecycleStatus } from '../definitions';
import type { Movement } from '../../../providers/movements';

// Every money figure of a lifecycle as one pure function of its ledger, in minor units.

export type CaptureMoneyStatus =
  'PENDING' | 'COMPLETED' | 'DECLINED' | 'PARTIALLY_REFUNDED' | 'REFUNDED' | 'REVERSED';

export type CaptureFigures = {
  reference: string;
  /** The hold it was taken from. */
  hold: string;
  /** What it took; zero once declined. */
  captured: bigint;
  /** Refunds that give money back, less those that came back. */
  refunded: bigint;
  /** Disputes that withdrew funds, less those reinstated. */
  reversed: bigint;
  status: CaptureMoneyStatus;
  final: boolean;
};

export type LedgerFigures = {
  /** The current hold's amount (the last hold booked). */
  authorized: bigint;
  /** What every capture took, whichever hold it was taken from. */
  captured: bigint;
  /** What the current hold can still capture. */
  remaining: bigint;
  refunded: bigint;
  reversed: bigint;
  captures: CaptureFigures[];
  /** The current hold, or undefined before any. */
  currentHold?: string;
  /** Set when the current hold ended without a capture ending it. */
  ended?: 'VOIDED' | 'EXPIRED' | 'DENIED';
  /** Set when a final capture of the current hold released its rest. */
  finalCaptureMade: boolean;
};

export function minorUnitsOfMovement(movement: Movement): bigint {
  return BigInt(movement.minorUnits);
}

/** What identifies a movement: a pending capture and its completion are two movements of one capture. */
export function identityOf(movement: Pick<Movement, 'kind' | 'reference'>): string {
  return `${movement.kind}:${movement.reference}`;
}

/** What a hold holds: its amount and the increments it was raised by. */
export function heldBy(movements: Movement[], hold: Movement): bigint {
  const increments = movements.filter(
    (movement) => movement.kind === 'hold-increment' && movement.of === hold.reference,
  );
  return minorUnitsOfMovement(hold) + sumOf(increments);
}

const endedByReason = { void: 'VOIDED', expiry: 'EXPIRED', denial: 'DENIED' } as const;

function sumOf(movements: Movement[]): bigint {
  return movements.reduce((sum, movement) => sum + minorUnitsOfMovement(movement), 0n);
}

function captureFigures(movements: Movement[], capture: Movement): CaptureFigures {
  const about = (kind: Movement['kind'], of = capture.reference) =>
    movements.filter((movement) => movement.kind === kind && movement.of === of);
  const declined = movements.some(
    (movement) => movement.kind === 'capture-declined' && movement.reference === capture.reference,
  );
  const completed = movements.some(
    (movement) => movement.kind === 'capture-completed' && movement.reference === capture.reference,
  );
  const refunds = about('refund');
  const returned = refunds.flatMap((refund) => about('refund-returned', refund.reference));
  const withdrawn = about('dispute-withdrawn');
  const reinstated = about('dispute-reinstated');
  const captured = declined ? 0n : minorUnitsOfMovement(capture);
  const refunded = sumOf(refunds) - sumOf(returned);
  const reversed = sumOf(withdrawn) - sumOf(reinstated);
  let status: CaptureMoneyStatus;
  if (declined) status = 'DECLINED';
  else if (reversed > 0n) status = 'REVERSED';
  else if (refunded > 0n && refunded >= captured) status = 'REFUNDED';
  else if (refunded > 0n) status = 'PARTIALLY_REFUNDED';
  else status = capture.pending && !completed ? 'PENDING' : 'COMPLETED';
  return {
    reference: capture.reference,
    hold: capture.of ?? '',
    captured,
    refunded,
    reversed,
    status,
    final: capture.final === true && !declined,
  };
}

/** The figures of a ledger, in minor units. */
export function figuresOf(movements: Movement[]): LedgerFigures {
  const holds = movements.filter((movement) => movement.kind === 'hold');
  const current = holds[holds.length - 1];
  const captures = movements
    .filter((movement) => movement.kind === 'capture')
    .map((capture) => captureFigures(movements, capture));
  const ofCurrent = captures.filter((capture) => current && capture.hold === current.reference);
  const releases = movements.filter(
    (movement) => movement.kind === 'release' && current && movement.of === current.reference,
  );
  // A final capture's release of the rest stands unless that capture was declined.
  const standing = releases.filter(
    (release) =>
      release.reason !== 'final-capture' ||
      !captures.some((capture) => capture.reference === release.reference && capture.status === 'DECLINED'),
  );
  const authorized = current ? heldBy(movements, current) : 0n;
  const left = authorized - sumOf(standing) - ofCurrent.reduce((sum, each) => sum + each.captured, 0n);
  const endingRelease = standing.find((release) => release.reason && release.reason in endedByReason);
  const reason = endingRelease?.reason as keyof typeof endedByReason | undefined;
  return {
    authorized,
    captured: captures.reduce((sum, capture) => sum + capture.captured, 0n),
    remaining: left > 0n ? left : 0n,
    refunded: captures.reduce((sum, capture) => sum + capture.refunded, 0n),
    reversed: captures.reduce((sum, capture) => sum + capture.reversed, 0n),
    captures,
    ...(current && { currentHold: current.reference }),
    ...(reason && { ended: endedByReason[reason] }),
    finalCaptureMade: standing.some((release) => release.reason === 'final-capture'),
  };
}

/**
 * The lifecycle's status from its figures: ended by a void, expiry or denial of its hold (captures made
 * before stay counted); captured once nothing remains, then refunded or reversed as its captures are.
 */
export function statusOf(figures: LedgerFigures): LifecycleStatus {
  if (figures.ended) return figures.ended;
  const live = figures.captures.filter((capture) => capture.status !== 'DECLINED');
  const pending = live.some((capture) => capture.status === 'PENDING');
  if (figures.remaining > 0n && !figures.finalCaptureMade) {
    return figures.captured > 0n ? 'PARTIALLY_CAPTURED' : 'AUTHORIZED';
  }
  if (pending) return 'CAPTURE_PENDING';
  if (live.some((capture) => capture.status === 'REVERSED')) return 'REVERSED';
  if (live.length > 0 && live.every((capture) => capture.status === 'REFUNDED')) return 'REFUNDED';
  if (live.some((capture) => capture.refunded > 0n)) return 'PARTIALLY_REFUNDED';
  return 'CAPTURED';
}
