import type { Money } from '../../providers/resources';
import type { MovementSource } from '../../providers/movements';
import type { SharedCapture, SharedCaptureIds } from '../../providers/shared-captures';
import { sharedCaptureIdsOf } from '../../providers/shared-capture-translations';
import {
  captureStatusByEvent,
  type CaptureRecord,
  type LifecycleState,
  type PaymentEvent,
  type RefundEvent,
} from './definitions';
import { amountOf, holdsMoney, minorUnitsOf, minorUnitsOrZero } from './money';
import { appendMovement } from './ledger/invariants';
import { figuresOf } from './ledger/figures';
import { movementOfRefundEvent } from './refunds';
import {
  applyCapture,
  capturedAtStart,
  decideRefund,
  heldEarlier,
  isTerminal,
  parkRefund,
  releaseRest,
  timeOf,
} from './bookings';

// Captures into one provider id that several share (Stripe's multicapture charge). The lifecycle gives each an
// id of its own, which the provider's adapter translates (sharedCaptureIdsOf). The shared id's events name no
// capture, only what it captured in all; a total above what the lifecycle booked into it is a capture it did not
// make (the dashboard's), or its own whose answer has not come yet. Such a capture is booked as learnt (no key);
// the answer of the lifecycle's own capture takes it back, so that no money is counted twice.

/** The provider's id of one of the lifecycle's captures: what a refund of it is sent to. */
export function providerCaptureId(state: LifecycleState, captureId: string): string {
  return sharedCaptureIdsOf(state)?.providerIdOf(captureId) ?? captureId;
}

/** The lifecycle's id of the first capture into a shared id, where the provider's captures share one. */
export function firstCaptureId(state: LifecycleState, sharedId: string): string | undefined {
  return sharedCaptureIdsOf(state)?.nextId(sharedId, []);
}

/** The lifecycle's captures into the provider's shared id. */
function capturesOfCharge(state: LifecycleState, chargeId: string): CaptureRecord[] {
  return state.captures.filter((capture) => providerCaptureId(state, capture.id) === chargeId);
}

/** A capture the lifecycle learnt of (an event, a read) and did not make: no key, not counted at start. */
function isLearned(state: LifecycleState, capture: CaptureRecord): boolean {
  return capture.idempotencyKey === undefined && capture.id !== capturedAtStart(state)?.reference;
}

function asShared(state: LifecycleState, capture: CaptureRecord): SharedCapture {
  return {
    id: capture.id,
    captured: minorUnitsOrZero(state, capture.amount.value),
    refunded: minorUnitsOrZero(state, capture.refundedAmount),
    learned: isLearned(state, capture),
  };
}

/** The charge's captures that took money, as the adapter's translation sees them. */
function sharedCaptures(state: LifecycleState, chargeId: string): SharedCapture[] {
  return capturesOfCharge(state, chargeId)
    .filter(holdsMoney)
    .map((capture) => asShared(state, capture));
}

function nextCaptureId(state: LifecycleState, translation: SharedCaptureIds, chargeId: string): string {
  const booked = state.ledger.movements.filter((movement) => movement.kind === 'capture');
  return translation.nextId(
    chargeId,
    booked.map((movement) => movement.reference),
  );
}

function capturedIn(captures: SharedCapture[]): bigint {
  return captures.reduce((sum, capture) => sum + capture.captured, 0n);
}

/** What the lifecycle booked into the charge, in minor units: its captures there. */
export function bookedIntoCharge(state: LifecycleState, chargeId: string): bigint {
  return capturedIn(sharedCaptures(state, chargeId));
}

/** What the learnt captures of shared ids hold in all: what a lost answer's retry may prove its own. */
export function learnedInCharges(state: LifecycleState): bigint {
  const learned = state.captures.filter((capture) => holdsMoney(capture) && isLearned(state, capture));
  return capturedIn(learned.map((capture) => asShared(state, capture)));
}

/**
 * The provider's answer to the lifecycle's own capture as the lifecycle records it: with an id of its own
 * (the shared id's next) when the provider's captures share one, else as answered. Learnt captures this
 * answer proves to be its own are taken back; one of the same amount lends the answer its id.
 */
export function ownCapture<Capture extends { id: string; amount?: Money }>(
  state: LifecycleState,
  capture: Capture,
): Capture {
  const translation = sharedCaptureIdsOf(state);
  if (!translation) return capture;
  const learned = capture.amount
    ? takeBackLearned(state, translation, capture.id, capture.amount.value)
    : undefined;
  return { ...capture, id: learned ?? nextCaptureId(state, translation, capture.id) };
}

/**
 * Takes back what the answer of the lifecycle's own capture of `amount` into the charge proves of the learnt
 * captures (the translation's takeBack): each taken back whole (a capture-declined in the ledger, its money
 * held again), and what it keeps learnt again as a capture of its own. Answers the id of the learnt capture
 * the answer became, if any.
 */
function takeBackLearned(
  state: LifecycleState,
  translation: SharedCaptureIds,
  chargeId: string,
  amount: string,
): string | undefined {
  const learned = sharedCaptures(state, chargeId).filter((capture) => capture.learned);
  const plan = translation.takeBack(learned, minorUnitsOrZero(state, amount));
  if ('becomes' in plan) return plan.becomes;
  for (const { id, kept } of plan.takenBack) {
    const capture = state.captures.find((each) => each.id === id);
    if (!capture) continue;
    const held = minorUnitsOrZero(state, capture.amount.value);
    const at = capture.createTime ?? new Date().toISOString();
    const back = { kind: 'capture-declined', reference: capture.id, source: 'answer', at } as const;
    appendMovement(state.ledger, { ...back, minorUnits: String(held) });
    state.captures = state.captures.filter((each) => each !== capture);
    if (kept === 0n) continue;
    const rest = {
      ...capture,
      id: nextCaptureId(state, translation, chargeId),
      amount: amountOf(state, kept),
    };
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
      minorUnits: String(kept),
      ...(rest.finalCapture && { final: true as const }),
    });
  }
  return undefined;
}

/**
 * A payment event about a shared id, decided by the adapter's translation: a refund or dispute falls on the
 * capture it concerns, or in portions over the charge's captures, or waits; a captured total books what the
 * lifecycle has not; a capture's own status says nothing of which capture. Null where the lifecycle's captures
 * have ids of their own: the event is decided as any other.
 */
export function decideChargeEvent(
  state: LifecycleState,
  event: PaymentEvent,
  source: MovementSource,
): string | undefined | null {
  const translation = sharedCaptureIdsOf(state);
  if (!translation || !event.captureId) return null;
  if (event.refundId) {
    const named = { ...event, refundId: event.refundId, captureId: event.captureId };
    const refund = { ...named, captureId: captureOfSharedId(state, translation, named) };
    if (state.captures.some((capture) => capture.id === refund.captureId)) {
      return decideRefund(state, refund, source);
    }
    const spread = spreadOverCharge(state, translation, refund, source);
    return spread === null ? parkRefund(state, refund) : spread;
  }
  const total = totalOfCharge(event);
  if (total) {
    if (total.currency_code !== state.currency) {
      return `total in ${total.currency_code}, not the lifecycle's ${state.currency}: not booked`;
    }
    return learnFromChargeTotal(state, translation, event, event.captureId, total, source);
  }
  if (!captureStatusByEvent[event.eventType]) return null;
  // One charge holds several of the lifecycle's captures: its event cannot say which one it reports.
  return `capture ${event.captureId} is the provider's shared id of this authorization's captures: they are booked from the capture answers`;
}

/**
 * What a shared charge captured in all, by its event: a capture.completed's amount (the shared capture's
 * captures in all) or the captured total an authorization event carries (`capturedTotal`).
 */
function totalOfCharge(event: PaymentEvent): Money | undefined {
  if (event.capturedTotal) return event.capturedTotal;
  return event.eventType === 'capture.completed' ? event.amount : undefined;
}

/**
 * Books what the shared charge captured beyond what the lifecycle booked into it as one learnt capture. An
 * authorization.captured event also says that the authorization takes no more captures.
 */
function learnFromChargeTotal(
  state: LifecycleState,
  translation: SharedCaptureIds,
  event: PaymentEvent,
  chargeId: string,
  total: Money,
  source: MovementSource,
): string | undefined {
  const authorizationId = event.authorizationId ?? state.currentAuthorizationId;
  const ofLifecycle =
    authorizationId === state.authorizationId ||
    authorizationId === state.currentAuthorizationId ||
    heldEarlier(state, authorizationId);
  if (!ofLifecycle) return `charge of authorization ${authorizationId}, which this lifecycle does not hold`;
  const final = event.eventType === 'authorization.captured';
  const unexplained = (minorUnitsOf(state, total.value) ?? 0n) - bookedIntoCharge(state, chargeId);
  if (unexplained > 0n) {
    const amount = amountOf(state, unexplained);
    applyCapture(
      state,
      {
        id: nextCaptureId(state, translation, chargeId),
        status: 'COMPLETED',
        amount,
        final_capture: final,
        create_time: event.createTime,
      },
      { amount, finalCapture: final, source },
      authorizationId,
    );
    return undefined;
  }
  const remaining = minorUnitsOrZero(state, state.remainingAmount);
  if (final && authorizationId === state.currentAuthorizationId && remaining > 0n && !isTerminal(state)) {
    // The authorization takes no more captures: what remains of its hold is released.
    const at = timeOf(event.createTime);
    releaseRest(state, { reason: 'final-capture', reference: chargeId, of: authorizationId, source, at });
    return undefined;
  }
  return `charge ${chargeId} captured ${total.value} in all: booked already`;
}

/**
 * Refund events parked on shared charges, applied now if the charges' captures can take them: what was just
 * booked (a refund that came back, a dispute won, a capture) may make room for them. Run after each booking
 * from outside the ledger: an event, a read, the lifecycle's own capture.
 */
export function applyRefundsAwaitingCharges(state: LifecycleState): void {
  const translation = sharedCaptureIdsOf(state);
  if (!translation) return;
  const charges = new Set(state.refundsAwaitingCapture?.map((event) => event.captureId));
  for (const chargeId of charges) {
    if (capturesOfCharge(state, chargeId).length > 0)
      applyRefundsAwaitingCharge(state, translation, chargeId);
  }
}

/** Refund events parked on the shared charge's own id, applied now if the charge's captures can take them. */
function applyRefundsAwaitingCharge(
  state: LifecycleState,
  translation: SharedCaptureIds,
  chargeId: string,
): void {
  const waiting = state.refundsAwaitingCapture?.filter((event) => event.captureId === chargeId) ?? [];
  for (const event of waiting) {
    const captureId = captureOfSharedId(state, translation, event);
    if (captureId !== chargeId) decideRefund(state, { ...event, captureId });
    else if (spreadOverCharge(state, translation, event) === null) continue;
    state.refundsAwaitingCapture = state.refundsAwaitingCapture?.filter((each) => each !== event);
  }
  if (state.refundsAwaitingCapture?.length === 0) state.refundsAwaitingCapture = undefined;
}

/**
 * A refund or dispute of a shared charge that names none of the charge's several captures (one made in the
 * dashboard, the payer's bank's): applied in portions over the charge's captures (the translation's
 * refundPortions), each a refund record of its own, `<refund>/<capture>`; a later event of the same refund
 * (a new status) updates its portions. Null when it is not such an event, or when the captures cannot take it
 * all yet.
 */
function spreadOverCharge(
  state: LifecycleState,
  translation: SharedCaptureIds,
  event: RefundEvent,
  source: MovementSource = 'event',
): string | undefined | null {
  const chargeId = event.captureId;
  const recorded = state.refunds?.filter((refund) => refund.id.startsWith(`${event.refundId}/`)) ?? [];
  if (recorded.length === 0 && capturesOfCharge(state, chargeId).length < 2) return null;
  const portions = recorded.length
    ? recorded.map((refund) => ({
        id: refund.captureId,
        amount: minorUnitsOrZero(state, refund.amount.value),
      }))
    : event.amount &&
      translation.refundPortions(
        sharedCaptures(state, chargeId),
        minorUnitsOrZero(state, event.amount.value),
      );
  if (!portions) return null;
  const notes = portions.map((portion) =>
    decideRefund(
      state,
      {
        ...event,
        refundId: `${event.refundId}/${portion.id}`,
        captureId: portion.id,
        amount: amountOf(state, portion.amount),
      },
      source,
    ),
  );
  return notes.every((note) => note !== undefined) ? notes[0] : undefined;
}

/**
 * The lifecycle's capture a refund event of a shared capture id concerns: the one its refund was sent for
 * (answered, or sent and not answered yet: a refund of the charge of that amount), else the translation's
 * choice (captureOfRefund); otherwise the shared id, which the lifecycle does not hold.
 */
function captureOfSharedId(state: LifecycleState, translation: SharedCaptureIds, event: RefundEvent): string {
  const { refundId, captureId: chargeId } = event;
  const refunded = state.refunds?.find((refund) => refund.id === refundId);
  if (refunded) return refunded.captureId;
  const sent = state.pendingAttempts.find(
    (attempt) =>
      attempt.operation === 'refund' &&
      attempt.sent.captureId === chargeId &&
      event.amount !== undefined &&
      minorUnitsOrZero(state, attempt.sent.amount.value) === minorUnitsOrZero(state, event.amount.value),
  );
  if (sent?.operation === 'refund') return sent.captureId;
  const givesBack = ['refund', 'dispute-withdrawn'].includes(movementOfRefundEvent(event));
  const asked = givesBack && event.amount ? minorUnitsOrZero(state, event.amount.value) : 0n;
  const ofCharge = capturesOfCharge(state, chargeId).map((capture) => asShared(state, capture));
  return translation.captureOfRefund(ofCharge, asked) ?? chargeId;
}

/**
 * The dispute that keeps the capture's charge from being refunded (Stripe refuses such a refund,
 * `charge_disputed`): one whose funds were withdrawn from any of the charge's captures and not reinstated,
 * booked or waiting for a capture the lifecycle is still to learn. Undefined while none is open or lost, and
 * where the capture shares no charge.
 */
export function disputeOfCharge(
  state: LifecycleState,
  captureId: string,
): { chargeId: string; disputeId: string } | undefined {
  if (!sharedCaptureIdsOf(state)) return undefined;
  const chargeId = providerCaptureId(state, captureId);
  const ofCharge = new Set(capturesOfCharge(state, chargeId).map((capture) => capture.id));
  const reversed = figuresOf(state.ledger.movements).captures.find(
    (capture) => ofCharge.has(capture.reference) && capture.reversed > 0n,
  );
  const booked = state.ledger.movements.find(
    (movement) => movement.kind === 'dispute-withdrawn' && movement.of === reversed?.reference,
  );
  if (booked) return { chargeId, disputeId: booked.reference.split('/')[0] ?? booked.reference };
  const latest = new Map<string, string | undefined>();
  for (const event of state.refundsAwaitingCapture ?? []) {
    if (event.captureId === chargeId) latest.set(event.refundId, movementOfRefundEvent(event));
  }
  const waiting = [...latest].find(([, movement]) => movement === 'dispute-withdrawn')?.[0];
  return waiting === undefined ? undefined : { chargeId, disputeId: waiting };
}
