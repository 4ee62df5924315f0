import { formatMinorUnits } from '../../currency-decimals';
import type { CaptureRecord, LifecycleState } from './definitions';
import { holdsMoney, minorUnitsOrZero } from './money';
import { appendMovement } from './ledger/invariants';
import { figuresOf } from './ledger/figures';
import { movementOfRefundEvent } from './refunds';

// Captures into one charge that several share (Stripe's multicapture): the lifecycle gives each an id of its
// own (`<charge>-<n>`). The charge's events name no capture, only what the charge captured in all; a total above
// what the lifecycle booked into the charge is a capture it did not make (the dashboard's), or its own whose
// answer has not come yet. Such a capture is booked as learned; the answer of the lifecycle's own capture
// takes it back, so that no money is counted twice.

/** The lifecycle's captures into the provider's charge. */
export function capturesOfCharge(state: LifecycleState, chargeId: string): CaptureRecord[] {
  return state.captures.filter((capture) => capture.chargeId === chargeId);
}

/** The id of the charge's next capture: one past the highest `n` the ledger booked (a learned one may be gone). */
export function nextCaptureId(state: LifecycleState, chargeId: string): string {
  const taken = state.ledger.movements
    .filter((movement) => movement.kind === 'capture' && movement.reference.startsWith(`${chargeId}-`))
    .map((movement) => Number(movement.reference.slice(chargeId.length + 1)));
  const highest = taken.reduce((max, n) => (Number.isSafeInteger(n) && n > max ? n : max), 0);
  return `${chargeId}-${highest + 1}`;
}

/** What the lifecycle booked into the charge, in minor units: its captures there. */
export function bookedIntoCharge(state: LifecycleState, chargeId: string): bigint {
  return capturesOfCharge(state, chargeId)
    .filter(holdsMoney)
    .reduce((sum, capture) => sum + minorUnitsOrZero(state, capture.amount.value), 0n);
}

/**
 * The answer of the lifecycle's own capture of `amount` into the charge: learned captures it proves to be
 * this one are taken back. One of the same amount becomes this capture (its id is the answer's); otherwise
 * learned captures with nothing refunded, newest first, are taken back whole (a capture-declined in the
 * ledger, their money held again), and what of each this capture does not explain is learned again as a
 * capture of its own. Answers the id of the learned capture it became, if any.
 */
export function takeBackLearned(state: LifecycleState, chargeId: string, amount: string): string | undefined {
  const learned = capturesOfCharge(state, chargeId).filter(
    (capture) => capture.learnedFromTotal && holdsMoney(capture),
  );
  const wanted = minorUnitsOrZero(state, amount);
  const same = learned.find((capture) => minorUnitsOrZero(state, capture.amount.value) === wanted);
  if (same) {
    delete same.learnedFromTotal;
    return same.id;
  }
  let left = wanted;
  for (const capture of learned.reverse()) {
    if (left === 0n) break;
    if (minorUnitsOrZero(state, capture.refundedAmount) > 0n) continue;
    const held = minorUnitsOrZero(state, capture.amount.value);
    const taken = held < left ? held : left;
    left -= taken;
    const at = capture.createTime ?? new Date().toISOString();
    const back = { kind: 'capture-declined', reference: capture.id, source: 'answer', at } as const;
    appendMovement(state.ledger, { ...back, minorUnits: String(held) });
    state.captures = state.captures.filter((each) => each !== capture);
    if (held === taken) continue;
    const rest = { ...capture, id: nextCaptureId(state, chargeId) };
    rest.amount = { ...capture.amount, value: formatMinorUnits(held - taken, state.currency) };
    state.captures.push(rest);
    const again = {
      kind: 'capture',
      reference: rest.id,
      of: rest.authorizationId,
      source: 'event',
      at,
    } as const;
    appendMovement(state.ledger, {
      ...again,
      minorUnits: String(held - taken),
      ...(rest.finalCapture && { final: true as const }),
    });
  }
  return undefined;
}

/**
 * How a refund of `amount` of the charge, naming none of its captures, falls on them: oldest first, each up
 * to what it has not had refunded; undefined when they cannot take it all (a capture is still to be learnt).
 */
export function refundPortions(
  state: LifecycleState,
  chargeId: string,
  amount: string,
): Array<{ captureId: string; amount: string }> | undefined {
  let left = minorUnitsOrZero(state, amount);
  const portions: Array<{ captureId: string; amount: string }> = [];
  for (const capture of capturesOfCharge(state, chargeId).filter(holdsMoney)) {
    if (left === 0n) break;
    const refundable =
      minorUnitsOrZero(state, capture.amount.value) - minorUnitsOrZero(state, capture.refundedAmount);
    const taken = refundable < left ? refundable : left;
    if (taken <= 0n) continue;
    portions.push({ captureId: capture.id, amount: formatMinorUnits(taken, state.currency) });
    left -= taken;
  }
  return left === 0n && portions.length > 0 ? portions : undefined;
}

/**
 * The dispute that keeps the charge from being refunded (Stripe refuses such a refund, `charge_disputed`):
 * one whose funds were withdrawn from any of the charge's captures and not reinstated, booked or waiting for
 * a capture the lifecycle is still to learn. Undefined while none is open or lost.
 */
export function disputeOfCharge(state: LifecycleState, chargeId: string): string | undefined {
  const ofCharge = new Set(capturesOfCharge(state, chargeId).map((capture) => capture.id));
  const reversed = figuresOf(state.ledger.movements).captures.find(
    (capture) => ofCharge.has(capture.reference) && capture.reversed > 0n,
  );
  const booked = state.ledger.movements.find(
    (movement) => movement.kind === 'dispute-withdrawn' && movement.of === reversed?.reference,
  );
  if (booked) return booked.reference.split('/')[0];
  const latest = new Map<string, string | undefined>();
  for (const event of state.refundsAwaitingCapture ?? []) {
    if (event.captureId === chargeId) latest.set(event.refundId, movementOfRefundEvent(event));
  }
  return [...latest].find(([, movement]) => movement === 'dispute-withdrawn')?.[0];
}
