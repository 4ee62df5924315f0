import type { Discrepancy, Ledger, Movement } from '../../../providers/movements';
import { figuresOf, heldBy, identityOf, minorUnitsOfMovement } from './figures';

// Appending to a ledger: a movement is booked once per provider reference, whichever source came first,
// and only when the ledger with it still keeps the invariants; otherwise it is recorded as a discrepancy.

export type LedgerRules = {
  /** What the provider lets a hold capture beyond its amount (PayPal's over-capture), in minor units. */
  captureAllowance?: (held: bigint) => bigint;
};

/**
 * `booked as a pair`: booked together with a movement the ledger had refused, one undoing the other (a refund
 * and its return, a dispute's withdrawal and its reinstatement).
 */
export type AppendOutcome = 'booked' | 'booked as a pair' | 'already booked' | 'discrepancy';

const DISCREPANCIES = 100;

/** Whether a discrepancy is still open: not resolved by a later read of the provider. */
export function isOpen(discrepancy: Discrepancy): boolean {
  return discrepancy.resolvedAt === undefined;
}

export function emptyLedger(): Ledger {
  return { movements: [], discrepancies: [] };
}

/** What a movement moves from, which the ledger must hold: its kind, and the field that names it. */
const needs: Partial<Record<Movement['kind'], [Movement['kind'], 'of' | 'reference']>> = {
  capture: ['hold', 'of'],
  release: ['hold', 'of'],
  'hold-increment': ['hold', 'of'],
  'capture-completed': ['capture', 'reference'],
  'capture-declined': ['capture', 'reference'],
  refund: ['capture', 'of'],
  'dispute-withdrawn': ['capture', 'of'],
  'dispute-reinstated': ['capture', 'of'],
  'dispute-inquiry': ['capture', 'of'],
  'refund-returned': ['refund', 'of'],
};

/** Why the ledger with `movement` appended would break an invariant, or undefined when it would not. */
export function brokenInvariant(
  movements: Movement[],
  movement: Movement,
  rules: LedgerRules = {},
): string | undefined {
  if (minorUnitsOfMovement(movement) < 0n) return 'amounts are never negative';
  const keyed =
    movement.key !== undefined &&
    movements.find(
      (each) =>
        each.kind === movement.kind && each.key === movement.key && each.reference !== movement.reference,
    );
  if (keyed) {
    return `one provider action per key: key ${movement.key} already made ${movement.kind} ${keyed.reference}`;
  }
  const needed = needs[movement.kind];
  if (needed) {
    const [kind, field] = needed;
    const target = movement[field];
    if (!movements.some((each) => each.kind === kind && each.reference === target))
      return `${movement.kind} of ${kind} ${target}, which the ledger does not hold`;
  }
  const after = figuresOf([...movements, movement]);
  for (const capture of after.captures) {
    if (capture.refunded < 0n) return `refund-returned beyond what capture ${capture.reference} had refunded`;
    if (capture.reversed < 0n)
      return `dispute-reinstated beyond what capture ${capture.reference} had withdrawn`;
    if (capture.refunded + capture.reversed > capture.captured) {
      return `${GIVES_BACK_TOO_MUCH}: capture ${capture.reference} would give back ${capture.refunded + capture.reversed} of ${capture.captured}`;
    }
  }
  const withIt = movements.concat(movement);
  const holds = new Map(
    withIt.filter((each) => each.kind === 'hold').map((hold) => [hold.reference, heldBy(withIt, hold)]),
  );
  for (const [hold, held] of holds) {
    const captured = after.captures
      .filter((capture) => capture.hold === hold)
      .reduce((sum, capture) => sum + capture.captured, 0n);
    const allowed = held + (rules.captureAllowance?.(held) ?? 0n);
    if (captured > allowed)
      return `captured ≤ held + allowance: hold ${hold} would have ${captured} captured of ${allowed} allowed`;
  }
  return undefined;
}

/**
 * Appends `movement` unless a movement of its kind is booked under its reference already; a movement that
 * would break an invariant is recorded as a discrepancy instead, never booked.
 */
export function appendMovement(ledger: Ledger, movement: Movement, rules: LedgerRules = {}): AppendOutcome {
  const identity = identityOf(movement);
  if (ledger.movements.some((each) => identityOf(each) === identity)) return 'already booked';
  const invariant = brokenInvariant(ledger.movements, movement, rules);
  if (invariant !== undefined) {
    if (bookAsPair(ledger, movement, rules)) {
      bookRefused(ledger, rules, movement.at);
      return 'booked as a pair';
    }
    // A redelivered event that breaks the same invariant is the same discrepancy.
    if (ledger.discrepancies.some((each) => identityOf(each.movement) === identity)) return 'discrepancy';
    recordDiscrepancy(ledger, { movement, invariant, at: movement.at, refused: true });
    return 'discrepancy';
  }
  ledger.movements.push(movement);
  bookRefused(ledger, rules, movement.at);
  return 'booked';
}

/**
 * Books the movements refused earlier that the ledger can hold now, in the order they came, and resolves their
 * discrepancies: a refund that came back, a capture or a dispute that was won can make room for a movement whose
 * event came first; two refused movements, one undoing the other, are booked as a pair (bookPair). One booked
 * meanwhile by another source is resolved too.
 */
function bookRefused(ledger: Ledger, rules: LedgerRules, at: string): void {
  for (let booked = true; booked;) {
    booked = false;
    const refused = ledger.discrepancies.filter((each) => each.refused && isOpen(each));
    for (const discrepancy of refused) {
      if (!isOpen(discrepancy)) continue;
      const identity = identityOf(discrepancy.movement);
      if (ledger.movements.some((each) => identityOf(each) === identity)) {
        discrepancy.resolvedAt = at;
        continue;
      }
      if (brokenInvariant(ledger.movements, discrepancy.movement, rules) === undefined) {
        ledger.movements.push(discrepancy.movement);
        discrepancy.resolvedAt = at;
        booked = true;
        continue;
      }
      const partner = refused.find(
        (each) => isOpen(each) && undoesEither(each.movement, discrepancy.movement),
      );
      if (partner && bookPair(ledger, discrepancy.movement, partner.movement, rules)) {
        discrepancy.resolvedAt = at;
        partner.resolvedAt = at;
        booked = true;
      }
    }
  }
}

/**
 * Books `movement` with a refused movement it undoes or that undoes it (bookPair), and resolves that one's
 * discrepancy; answers whether it did.
 */
function bookAsPair(ledger: Ledger, movement: Movement, rules: LedgerRules): boolean {
  const partner = ledger.discrepancies.find(
    (each) => each.refused && isOpen(each) && undoesEither(each.movement, movement),
  );
  if (!partner || !bookPair(ledger, movement, partner.movement, rules)) return false;
  partner.resolvedAt = movement.at;
  return true;
}

/** The invariant a refund or a withdrawal alone breaks that what undoes it, booked with it, mends. */
const GIVES_BACK_TOO_MUCH = 'refunded ≤ captured per capture';

/** Whether `undoing` gives back what `movement` moved: a refund's return, a dispute's reinstatement. */
function undoes(undoing: Movement, movement: Movement): boolean {
  if (undoing.kind === 'refund-returned')
    return movement.kind === 'refund' && movement.reference === undoing.of;
  if (undoing.kind === 'dispute-reinstated')
    return movement.kind === 'dispute-withdrawn' && movement.reference === undoing.reference;
  return false;
}

function undoesEither(a: Movement, b: Movement): boolean {
  return undoes(a, b) || undoes(b, a);
}

/**
 * A refund or a dispute's withdrawal the ledger refused for giving back more than its capture had left, and
 * that was then undone (the refund came back, the dispute was won), moved no money at the provider: deliveries
 * arrive out of order, and a dispute or a refund booked first can take what it would have given back. When one
 * of `a` and `b` undoes the other, and the undone one alone breaks only that invariant while the two together
 * keep them all, both are booked, undone first, whichever came first; answers whether they were.
 */
function bookPair(ledger: Ledger, a: Movement, b: Movement, rules: LedgerRules): boolean {
  const [first, second] = undoes(b, a) ? [a, b] : [b, a];
  if (!undoes(second, first)) return false;
  const alone = brokenInvariant(ledger.movements, first, rules);
  if (!alone?.startsWith(GIVES_BACK_TOO_MUCH)) return false;
  if (brokenInvariant([...ledger.movements, first], second, rules) !== undefined) return false;
  ledger.movements.push(first, second);
  return true;
}

/**
 * Records a difference the ledger cannot book (an invariant a movement would break, or what a read of the
 * provider does not find); the same movement and reason are recorded once, and one resolved is opened again.
 * Answers whether it is newly open.
 */
export function recordDiscrepancy(ledger: Ledger, discrepancy: Discrepancy): boolean {
  const identity = identityOf(discrepancy.movement);
  const known = ledger.discrepancies.find(
    (each) => identityOf(each.movement) === identity && each.invariant === discrepancy.invariant,
  );
  if (known?.resolvedAt !== undefined) {
    delete known.resolvedAt;
    return true;
  }
  if (known) return false;
  ledger.discrepancies.push(discrepancy);
  if (ledger.discrepancies.length > DISCREPANCIES) ledger.discrepancies.shift();
  return true;
}
