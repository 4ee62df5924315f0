import type { Money, PaymentCapture } from '../../providers/resources';
import {
  terminalStatuses,
  type CaptureRecord,
  type CaptureRecordStatus,
  type LifecycleState,
  type PaymentEvent,
  type RefundEvent,
  type RefundRecord,
} from './definitions';
import { amountOf, holdsMoney, minorUnitsOrZero } from './money';
import { movementOfRefundEvent, recordRefund } from './refunds';
import { figuresOf, statusOf } from './ledger/figures';
import { appendMovement, type AppendOutcome } from './ledger/invariants';
import type { Movement, MovementSource } from '../../providers/movements';

// Booking into a lifecycle's ledger: money moves only by movements booked there, and the state's money figures
// follow from it (settle). A movement's time is the provider's where it says one, else the workflow's clock
// (deterministic in it). Pure: the workflow's transitions call these, and they never do I/O.

const REFUNDS_AWAITING_CAPTURE = 50;

export function isTerminal(state: LifecycleState): boolean {
  return terminalStatuses.includes(state.status);
}

/** The provider's time of a movement, or now when it gives none. */
export function timeOf(providerTime: string | undefined): string {
  return providerTime ?? new Date().toISOString();
}

/** A movement of `value` (a decimal amount in the lifecycle's currency), as the ledger books it. */
export function movementOf(
  state: LifecycleState,
  value: string,
  fields: Omit<Movement, 'minorUnits'>,
): Movement {
  const defined = Object.fromEntries(Object.entries(fields).filter(([, each]) => each !== undefined));
  return { ...(defined as Omit<Movement, 'minorUnits'>), minorUnits: String(minorUnitsOrZero(state, value)) };
}

/**
 * What the provider lets captures take beyond a hold of `held`, in minor units: what the hold's own maximum
 * adds to it where the provider says (Stripe's), else overCapturePercent of it, capped where the provider caps
 * it (PayPal's 75 USD).
 */
export function captureAllowance(state: LifecycleState, held: bigint): bigint {
  if (state.captureMaximum !== undefined) {
    const maximum = minorUnitsOrZero(state, state.captureMaximum);
    return maximum > held ? maximum - held : 0n;
  }
  const byPercent = (held * BigInt(state.overCapturePercent ?? 0)) / 100n;
  if (state.overCaptureAtMost === undefined) return byPercent;
  const atMost = minorUnitsOrZero(state, state.overCaptureAtMost);
  return byPercent < atMost ? byPercent : atMost;
}

/** Books a movement into the lifecycle's ledger (once per reference, invariants kept) and settles the state. */
export function book(state: LifecycleState, movement: Movement): AppendOutcome {
  const outcome = appendMovement(state.ledger, movement, {
    captureAllowance: (held) => captureAllowance(state, held),
  });
  settle(state);
  return outcome;
}

/** The money figures, each capture's status and the lifecycle's status, as its ledger says. */
function settle(state: LifecycleState): void {
  const figures = figuresOf(state.ledger.movements);
  state.capturedAmount = amountOf(state, figures.captured).value;
  state.remainingAmount = amountOf(state, figures.remaining).value;
  const givesBack = state.ledger.movements.some(
    (movement) => movement.kind === 'refund' || movement.kind === 'dispute-withdrawn',
  );
  if (givesBack) state.refundedAmount = amountOf(state, figures.refunded + figures.reversed).value;
  for (const capture of state.captures) {
    const money = figures.captures.find((each) => each.reference === capture.id);
    if (!money) continue;
    // FAILED and DECLINED both took no money: the provider's word for it stays.
    if (!(money.status === 'DECLINED' && capture.status === 'FAILED')) capture.status = money.status;
    const givesBackOfCapture = state.ledger.movements.some(
      (movement) =>
        (movement.kind === 'refund' || movement.kind === 'dispute-withdrawn') && movement.of === capture.id,
    );
    if (givesBackOfCapture) capture.refundedAmount = amountOf(state, money.refunded + money.reversed).value;
    capture.finalCapture = money.final;
  }
  state.status = statusOf(figures);
}

/**
 * Records a refund or reversal the provider answered (or reported) and books what it moves: a refund, or a
 * dispute's withdrawn funds; a failed or canceled refund comes back, a canceled reversal (a dispute the
 * merchant won) is reinstated.
 */
export function applyRefund(state: LifecycleState, refund: RefundRecord, source?: MovementSource): void {
  recordRefund(state, refund);
  const returned = refund.status === 'FAILED' || refund.status === 'CANCELLED';
  const value = refund.amount.value;
  const base = {
    reference: refund.id,
    of: refund.captureId,
    source: source ?? (refund.idempotencyKey ? 'answer' : 'event'),
    key: refund.idempotencyKey,
    at: timeOf(refund.createTime),
  } as const;
  if (refund.kind === 'reversal' && refund.status === 'INQUIRY') {
    book(state, movementOf(state, value, { ...base, kind: 'dispute-inquiry' }));
    return;
  }
  if (refund.kind === 'reversal') {
    book(state, movementOf(state, value, { ...base, kind: 'dispute-withdrawn' }));
    if (returned) book(state, movementOf(state, value, { ...base, kind: 'dispute-reinstated' }));
    return;
  }
  const pending = refund.status === 'PENDING' ? (true as const) : undefined;
  book(state, movementOf(state, value, { ...base, kind: 'refund', pending }));
  if (returned) book(state, movementOf(state, value, { ...base, of: refund.id, kind: 'refund-returned' }));
}

/** Records a capture the provider answered; the same capture id (e.g. from a webhook first) counts once. */
export function applyCapture(
  state: LifecycleState,
  capture: Pick<PaymentCapture, 'id' | 'amount' | 'final_capture' | 'create_time'> & {
    status: CaptureRecordStatus;
  },
  requested: {
    amount: Money;
    finalCapture: boolean;
    idempotencyKey?: string;
    /** Where the lifecycle learned of it, when not its own answer (keyed) or an event. */
    source?: MovementSource;
  },
  authorizationId = state.currentAuthorizationId,
): void {
  const known = state.captures.find((existing) => existing.id === capture.id);
  const record: CaptureRecord = {
    id: capture.id,
    authorizationId,
    status: capture.status,
    amount: capture.amount
      ? { currency_code: capture.amount.currency_code, value: capture.amount.value }
      : requested.amount,
    finalCapture: capture.final_capture ?? requested.finalCapture,
    idempotencyKey: requested.idempotencyKey,
    createTime: capture.create_time,
  };
  const wasPending = known?.status === 'PENDING';
  if (known) {
    Object.assign(known, {
      ...record,
      idempotencyKey: record.idempotencyKey ?? known.idempotencyKey,
      refundedAmount: known.refundedAmount,
      status: known.status === 'PENDING' ? record.status : known.status,
    });
  } else state.captures.push(record);
  const movement = {
    reference: record.id,
    of: authorizationId,
    source: requested.source ?? (requested.idempotencyKey ? 'answer' : 'event'),
    key: requested.idempotencyKey,
    at: timeOf(record.createTime),
  } as const;
  const value = record.amount.value;
  const tookMoney = holdsMoney(record);
  book(
    state,
    movementOf(state, value, {
      ...movement,
      kind: 'capture',
      pending: record.status === 'PENDING' ? true : undefined,
      final: record.finalCapture && tookMoney ? true : undefined,
    }),
  );
  if (!tookMoney) book(state, movementOf(state, value, { ...movement, kind: 'capture-declined' }));
  else if (wasPending && record.status !== 'PENDING') {
    book(state, movementOf(state, value, { ...movement, kind: 'capture-completed' }));
  }
  // A final capture of the current hold releases what is left of it.
  if (record.finalCapture && tookMoney && authorizationId === state.currentAuthorizationId) {
    releaseRest(state, { ...movement, reason: 'final-capture' });
  }
  if (!known) applyRefundsAwaiting(state, record.id);
}

/** The refund and reversal events that came before this capture's event, applied now. */
function applyRefundsAwaiting(state: LifecycleState, captureId: string): void {
  const waiting = state.refundsAwaitingCapture?.filter((event) => event.captureId === captureId) ?? [];
  if (waiting.length === 0) return;
  const others = state.refundsAwaitingCapture?.filter((event) => event.captureId !== captureId) ?? [];
  state.refundsAwaitingCapture = others.length > 0 ? others : undefined;
  for (const event of waiting) decideRefund(state, event);
}

/** Releases what remains of the current hold: it ended, was replaced, or a final capture took its last. */
export function releaseRest(state: LifecycleState, release: Omit<Movement, 'kind' | 'minorUnits'>): void {
  const rest = figuresOf(state.ledger.movements).remaining;
  book(state, { ...release, kind: 'release', minorUnits: String(rest) });
}

/**
 * A refund or dispute event: its resource is the refund or dispute, whose capture is one of the lifecycle's.
 * What it moves is its adapter's translation (event.movement): a refund, one that came back (its status
 * FAILED or CANCELLED), funds a dispute withdrew or reinstated (CANCELLED), an inquiry that moves nothing.
 */
export function decideRefund(
  state: LifecycleState,
  event: RefundEvent,
  source: MovementSource = 'event',
): string | undefined {
  if (!state.captures.some((capture) => capture.id === event.captureId)) {
    return `refund of capture ${event.captureId}, which this lifecycle does not hold`;
  }
  const known = state.refunds?.find((refund) => refund.id === event.refundId);
  const movement = movementOfRefundEvent(event);
  const kind = movement.startsWith('dispute-') ? 'reversal' : 'refund';
  const status = statusOfMovement(movement, event.status);
  if (known && known.kind === kind && known.status === status)
    return `refund ${known.id} is already recorded`;
  const amount = event.amount ?? known?.amount;
  if (!amount) return 'refund event without an amount';
  applyRefund(
    state,
    { id: event.refundId, captureId: event.captureId, kind, status, amount, createTime: event.createTime },
    source,
  );
  return undefined;
}

function statusOfMovement(movement: NonNullable<PaymentEvent['movement']>, status?: string): string {
  switch (movement) {
    case 'refund-returned':
      return status === 'CANCELLED' ? 'CANCELLED' : 'FAILED';
    case 'dispute-reinstated':
      return 'CANCELLED';
    case 'dispute-inquiry':
      return 'INQUIRY';
    case 'dispute-withdrawn':
      return 'COMPLETED';
    default:
      return status === 'PENDING' ? 'PENDING' : 'COMPLETED';
  }
}

/** Whether the lifecycle held this authorization before a reauthorization replaced it. */
export function heldEarlier(state: LifecycleState, authorizationId: string | undefined): boolean {
  return state.reauthorizations.some(
    (reauthorization) => reauthorization.fromAuthorizationId === authorizationId,
  );
}

/** The capture the start counted as captured before it (booked right after the start's hold), if any. */
export function capturedAtStart(state: LifecycleState): Movement | undefined {
  const atStart = state.ledger.movements[1];
  return atStart?.kind === 'capture' && atStart.source === 'read' ? atStart : undefined;
}

/** A refund or reversal event that came before its capture: applied when the capture is recorded. */
export function parkRefund(state: LifecycleState, refund: RefundEvent): string {
  state.refundsAwaitingCapture = [...(state.refundsAwaitingCapture ?? []), refund].slice(
    -REFUNDS_AWAITING_CAPTURE,
  );
  return `waits for capture ${refund.captureId}, which this lifecycle does not hold yet`;
}
