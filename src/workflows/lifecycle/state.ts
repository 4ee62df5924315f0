import type { CaptureRequest } from '../../providers/port';
import type { Authorization, Money, PaymentCapture, Refund } from '../../providers/resources';
import { formatMinorUnits, toMinorUnits } from '../../currency-decimals';
import {
  captureStatusByEvent,
  terminalStatuses,
  type CaptureRecordStatus,
  type DeadlineReasons,
  type CaptureRecord,
  type LifecycleState,
  type PaymentEvent,
  type PendingRefund,
  type RecordedEvent,
  type RefundEvent,
  type RefundRecord,
} from './definitions';
import { amountOf, holdsMoney, minorUnitsOf, minorUnitsOrZero } from './money';
import { movementOfRefundEvent, recordRefund, refundableAmount } from './refunds';
import {
  bookedIntoCharge,
  capturesOfCharge,
  nextCaptureId,
  refundPortions,
  takeBackLearned,
} from './shared-charge';
import { figuresOf, statusOf } from './ledger/figures';
import { beforeHoldEnds } from './hold-deadlines';
import { appendMovement, type AppendOutcome } from './ledger/invariants';
import type { Movement, MovementSource, ReleaseReason } from '../../providers/movements';

// Pure transitions of a lifecycle's state. The workflow calls them; they never do I/O. Money moves only by
// movements booked into the lifecycle's ledger; the state's money figures follow from it (settle). A
// movement's time is the provider's where it says one, else the workflow's clock (deterministic in it).

const RECENT_EVENTS = 50;
const SEEN_EVENT_IDS = 500;
const REFUNDS_AWAITING_CAPTURE = 50;

export function isTerminal(state: LifecycleState): boolean {
  return terminalStatuses.includes(state.status);
}

/** The provider's time of a movement, or now when it gives none. */
function timeOf(providerTime: string | undefined): string {
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

/** The hold's own capture maximum, where its provider says one in the lifecycle's currency. */
function captureMaximumOf(state: LifecycleState, authorization: Authorization): string | undefined {
  const maximum = authorization.capture_maximum;
  return maximum?.currency_code === state.currency ? maximum.value : undefined;
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

const manageableStatuses = ['CREATED', 'PARTIALLY_CAPTURED', 'PENDING'];

export function canManage(authorization: Authorization): boolean {
  return manageableStatuses.includes(authorization.status);
}

/**
 * The state of a lifecycle started on `authorization`: its ledger holds the authorization, and what its
 * provider says was captured before the start (captured_amount, checked by the start), read at `readAt`.
 * Into a charge several captures share (`sharedChargeId`), that is one of the charge's captures.
 */
export function initialState(
  workflowId: string,
  authorization: Authorization,
  options: {
    orderId?: string;
    owner?: string;
    expiryPolicy: LifecycleState['expiryPolicy'];
    maxCaptures: number;
    provider: LifecycleState['provider'];
    reauthorization?: LifecycleState['reauthorization'];
    sharedCaptureIds?: LifecycleState['sharedCaptureIds'];
    sharedChargeId?: string;
    capturesEndAtMax?: LifecycleState['capturesEndAtMax'];
    overCapturePercent?: LifecycleState['overCapturePercent'];
    overCaptureAtMost?: LifecycleState['overCaptureAtMost'];
    overcapture?: LifecycleState['overcapture'];
    extendedAuthorization?: LifecycleState['extendedAuthorization'];
    incrementable?: LifecycleState['incrementable'];
    keyRetentionMs: LifecycleState['keyRetentionMs'];
  },
  times: {
    createTime: string;
    reauthorizeAt: string;
    expiryPolicyAt: string;
    reasons: DeadlineReasons;
    readAt?: string;
  },
): LifecycleState {
  const { currency_code: currency, value: authorized } = authorization.amount;
  const state: LifecycleState = {
    workflowId,
    authorizationId: authorization.id,
    provider: options.provider,
    ...(options.reauthorization !== undefined && { reauthorization: options.reauthorization }),
    ...(options.sharedCaptureIds !== undefined && { sharedCaptureIds: options.sharedCaptureIds }),
    currentAuthorizationId: authorization.id,
    orderId: options.orderId,
    ...(options.owner !== undefined && { owner: options.owner }),
    status: 'AUTHORIZED',
    currency,
    authorizedAmount: authorized,
    capturedAmount: '0',
    remainingAmount: authorized,
    authorizationCreateTime: times.createTime,
    expirationTime: authorization.expiration_time,
    reauthorizeAt: times.reauthorizeAt,
    expiryPolicyAt: times.expiryPolicyAt,
    deadlineReasons: times.reasons,
    expiryPolicy: options.expiryPolicy,
    captures: [],
    reauthorizations: [],
    recentEvents: [],
    keyedAnswers: [],
    seenEventIds: [],
    maxCaptures: options.maxCaptures,
    ...(options.capturesEndAtMax && { capturesEndAtMax: true }),
    ...(options.overCapturePercent && { overCapturePercent: options.overCapturePercent }),
    ...(options.overCaptureAtMost !== undefined && { overCaptureAtMost: options.overCaptureAtMost }),
    ...(authorization.capture_maximum?.currency_code === currency && {
      captureMaximum: authorization.capture_maximum.value,
    }),
    ...(options.overcapture && { overcapture: true }),
    ...(options.extendedAuthorization && { extendedAuthorization: true }),
    ...(options.incrementable && { incrementable: true }),
    keyRetentionMs: options.keyRetentionMs,
    pendingAttempts: [],
    ledger: { movements: [], discrepancies: [] },
  };
  const read = { source: 'read', at: times.readAt ?? times.createTime } as const;
  book(
    state,
    movementOf(state, authorized, {
      ...read,
      kind: 'hold',
      reference: authorization.id,
      endsAt: authorization.expiration_time,
    }),
  );
  const captured = toMinorUnits(authorization.captured_amount?.value ?? '0', currency) ?? 0n;
  if (captured === 0n) return releaseUncapturable(state, authorization, read);
  const value = formatMinorUnits(captured, currency);
  const chargeId = options.sharedCaptureIds && options.sharedChargeId;
  // Kept apart from the captures, unless it is one of a shared charge's: it is refunded through the charge.
  const reference = chargeId ? `${chargeId}-1` : `${authorization.id}/captured-before-start`;
  if (chargeId) {
    state.captures.push({
      id: reference,
      authorizationId: authorization.id,
      status: 'COMPLETED',
      amount: { currency_code: currency, value },
      finalCapture: false,
      createTime: read.at,
      chargeId,
    });
  }
  book(state, movementOf(state, value, { ...read, kind: 'capture', reference, of: authorization.id }));
  return releaseUncapturable(state, authorization, read);
}

/**
 * Releases what the provider says can no longer be captured of the hold it just read or answered (Stripe's
 * `amount_capturable`: 0 once an intent succeeded, whatever it did not capture).
 */
export function releaseUncapturable(
  state: LifecycleState,
  authorization: Authorization,
  learned: Pick<Movement, 'source' | 'at'>,
): LifecycleState {
  const uncaptured = figuresOf(state.ledger.movements).remaining;
  const rest = capturable(authorization, uncaptured);
  if (rest < uncaptured) {
    book(state, {
      ...learned,
      kind: 'release',
      reason: 'not-capturable',
      reference: `${authorization.id}/not-capturable`,
      of: authorization.id,
      minorUnits: String(uncaptured - rest),
    });
  }
  return state;
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
    chargeId?: string;
    learnedFromTotal?: true;
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
    ...(requested.chargeId !== undefined && { chargeId: requested.chargeId }),
    ...(requested.learnedFromTotal && { learnedFromTotal: true }),
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

export function applyReauthorization(
  state: LifecycleState,
  authorization: Authorization,
  reason: 'timer' | 'request',
  at: string,
): void {
  // A new hold (Stripe's new intent) is not raised in place: it asks for no incremental authorization.
  if (state.reauthorization === 'new-authorization') delete state.incrementable;
  state.reauthorizations.push({
    fromAuthorizationId: state.currentAuthorizationId,
    toAuthorizationId: authorization.id,
    amount: { currency_code: authorization.amount.currency_code, value: authorization.amount.value },
    reason,
    at,
  });
  // The new hold replaces what remained of the current one.
  const hold = state.currentAuthorizationId;
  releaseRest(state, { reason: 'replaced', reference: hold, of: hold, source: 'answer', at });
  state.currentAuthorizationId = authorization.id;
  book(
    state,
    movementOf(state, authorization.amount.value, {
      kind: 'hold',
      reference: authorization.id,
      source: 'answer',
      at,
      endsAt: authorization.expiration_time,
    }),
  );
  releaseUncapturable(state, authorization, { source: 'answer', at });
  state.expirationTime = authorization.expiration_time ?? state.expirationTime;
  if (state.reauthorization === 'new-authorization')
    state.captureMaximum = captureMaximumOf(state, authorization);
  state.reauthorizeAt = undefined;
  state.deadlineReasons = { expiryPolicy: state.deadlineReasons.expiryPolicy };
  // A new authorization is a new hold (Stripe): the expiry policy follows its end, an hour before it.
  const newEnd = authorization.expiration_time ? Date.parse(authorization.expiration_time) : NaN;
  if (state.reauthorization === 'new-authorization' && Number.isFinite(newEnd)) {
    const policy = beforeHoldEnds(newEnd);
    state.expiryPolicyAt = new Date(policy.at).toISOString();
    state.deadlineReasons = { expiryPolicy: policy.why };
  }
}

/**
 * What can still be captured of a hold: `uncaptured`, or less when the provider says so (Stripe's
 * amount_capturable is 0 once an intent succeeded, whatever it did not capture).
 */
function capturable(authorization: Authorization, uncaptured: bigint): bigint {
  const { amount_capturable: stated } = authorization;
  if (!stated || stated.currency_code !== authorization.amount.currency_code) return uncaptured;
  const minor = toMinorUnits(stated.value, stated.currency_code);
  return minor !== undefined && minor < uncaptured ? minor : uncaptured;
}

/**
 * The authorization a void releases: the original (PayPal voids its reauthorizations with it), or the current
 * one when the provider reauthorized by a new authorization and canceled the old (Stripe).
 */
export function voidTarget(state: LifecycleState): string {
  return state.reauthorization === 'new-authorization' ? state.currentAuthorizationId : state.authorizationId;
}

/**
 * The provider's answer to the lifecycle's own capture as the lifecycle records it: with an id of its own
 * (`<charge>-<n>`, the charge's next) when the provider's captures share one, else as answered. A capture
 * learnt from the charge's total that this answer proves to be its own is taken back (shared-charge.ts):
 * one of the same amount lends the answer its id.
 */
export function ownCapture<Capture extends { id: string; amount?: Money }>(
  state: LifecycleState,
  capture: Capture,
): Capture {
  if (!state.sharedCaptureIds) return capture;
  const learned = capture.amount ? takeBackLearned(state, capture.id, capture.amount.value) : undefined;
  return { ...capture, id: learned ?? nextCaptureId(state, capture.id) };
}

/**
 * Books the provider's answer to the lifecycle's own capture, sent as `sent`; answers the capture as the
 * lifecycle records it (see ownCapture).
 */
export function bookCapture(
  state: LifecycleState,
  sent: CaptureRequest,
  answer: PaymentCapture,
): PaymentCapture {
  const own = ownCapture(state, answer);
  applyCapture(state, own, {
    amount: sent.amount,
    finalCapture: sent.finalCapture,
    idempotencyKey: sent.idempotencyKey,
    ...(own.id !== answer.id && { chargeId: answer.id }),
  });
  applyRefundsAwaitingCharges(state);
  return own;
}

/**
 * Books the provider's answer to the lifecycle's own refund. One its event booked first, spread over a
 * shared charge's captures (`<refund>/<capture>`), is booked already.
 */
export function bookRefund(state: LifecycleState, attempt: PendingRefund, answer: Refund): void {
  const spread = state.ledger.movements.some(
    (movement) => movement.kind === 'refund' && movement.reference.startsWith(`${answer.id}/`),
  );
  if (spread) return;
  applyRefund(state, {
    id: answer.id,
    captureId: attempt.captureId,
    kind: 'refund',
    status: answer.status,
    amount: answer.amount
      ? { currency_code: answer.amount.currency_code, value: answer.amount.value }
      : attempt.sent.amount,
    idempotencyKey: attempt.sent.idempotencyKey,
    createTime: answer.create_time,
  });
}

/** The provider's id of one of the lifecycle's captures: what a refund of it is sent to. */
export function providerCaptureId(state: LifecycleState, captureId: string): string {
  return state.captures.find((capture) => capture.id === captureId)?.chargeId ?? captureId;
}

const endings = { VOIDED: 'void', EXPIRED: 'expiry', DENIED: 'denial' } as const;

/** The current hold ended without a capture: what remained of it is released. */
export function markEnded(
  state: LifecycleState,
  status: keyof typeof endings,
  source: MovementSource = 'answer',
  at?: string,
): void {
  releaseHold(state, endings[status], source, at);
}

/**
 * Books the provider's answer to an incremental authorization: the hold raised in place to the answered amount,
 * a `hold-increment` of what it added, under the caller's key.
 */
export function bookIncrement(
  state: LifecycleState,
  authorization: Authorization,
  idempotencyKey: string,
): void {
  const hold = state.currentAuthorizationId;
  const raisedTo = minorUnitsOf(state, authorization.amount.value) ?? 0n;
  const held = figuresOf(state.ledger.movements).authorized;
  if (raisedTo > held) {
    book(state, {
      kind: 'hold-increment',
      reference: `${hold}/increment/${idempotencyKey}`,
      of: hold,
      minorUnits: String(raisedTo - held),
      source: 'answer',
      key: idempotencyKey,
      at: timeOf(authorization.update_time),
    });
  }
  state.authorizedAmount = amountOf(state, raisedTo).value;
  state.captureMaximum = captureMaximumOf(state, authorization) ?? state.captureMaximum;
}

/**
 * The order is complete: what remains of the current hold is released (the provider voided it), and the
 * captures stand, so the lifecycle's status follows from them.
 */
export function markCompleted(state: LifecycleState): void {
  releaseHold(state, 'order-complete', 'answer');
}

/** Releases what remains of the current hold, booked under the hold's own id. */
function releaseHold(
  state: LifecycleState,
  reason: ReleaseReason,
  source: MovementSource,
  at?: string,
): void {
  const hold = state.currentAuthorizationId;
  releaseRest(state, { reason, reference: hold, of: hold, source, at: timeOf(at) });
}

/** Releases what remains of the current hold: it ended, was replaced, or a final capture took its last. */
function releaseRest(state: LifecycleState, release: Omit<Movement, 'kind' | 'minorUnits'>): void {
  const rest = figuresOf(state.ledger.movements).remaining;
  book(state, { ...release, kind: 'release', minorUnits: String(rest) });
}

/**
 * Applies a verified provider event, or records why not. Events never move the state backwards: one about
 * an older authorization id, a duplicate, or a VOIDED after money was captured is recorded, not applied.
 */
export function applyEvent(state: LifecycleState, event: PaymentEvent, receivedAt: string): RecordedEvent {
  const recorded: RecordedEvent = {
    id: event.id,
    eventType: event.eventType,
    authorizationId: event.authorizationId,
    captureId: event.captureId,
    receivedAt,
    applied: false,
  };
  if (state.seenEventIds.includes(event.id)) return { ...recorded, note: 'duplicate delivery' };
  state.seenEventIds.push(event.id);
  if (state.seenEventIds.length > SEEN_EVENT_IDS) state.seenEventIds.shift();

  recorded.note = decide(state, event, 'event');
  if (recorded.note === undefined) applyRefundsAwaitingCharges(state);
  recorded.applied = recorded.note === undefined;
  state.recentEvents.push(recorded);
  if (state.recentEvents.length > RECENT_EVENTS) state.recentEvents.shift();
  return recorded;
}

/**
 * Books what the provider was read to hold (reconciliation) as an event of the same facts would, with source
 * 'read'; answers why nothing was booked (already booked, or not the lifecycle's), or undefined.
 */
export function applyFinding(state: LifecycleState, finding: PaymentEvent): string | undefined {
  const note = decide(state, finding, 'read');
  if (note === undefined) applyRefundsAwaitingCharges(state);
  return note;
}

function decide(state: LifecycleState, event: PaymentEvent, source: MovementSource): string | undefined {
  if (event.amount && event.amount.currency_code !== state.currency) {
    return `amount in ${event.amount.currency_code}, not the lifecycle's ${state.currency}: not booked`;
  }
  if (event.refundId && event.captureId) {
    const named = { ...event, refundId: event.refundId, captureId: event.captureId };
    const captureId = state.sharedCaptureIds ? captureOfSharedId(state, named) : event.captureId;
    const refund = { ...named, captureId };
    const held = state.captures.some((capture) => capture.id === captureId);
    const spread = !held && state.sharedCaptureIds ? spreadOverCharge(state, refund, source) : null;
    if (spread !== null) return spread;
    if (!held) {
      state.refundsAwaitingCapture = [...(state.refundsAwaitingCapture ?? []), refund].slice(
        -REFUNDS_AWAITING_CAPTURE,
      );
      return `waits for capture ${captureId}, which this lifecycle does not hold yet`;
    }
    return decideRefund(state, refund, source);
  }
  const captureStatus = captureStatusByEvent[event.eventType];
  const chargeTotal = state.sharedCaptureIds && event.captureId ? totalOfCharge(event) : undefined;
  if (chargeTotal && event.captureId) {
    if (chargeTotal.currency_code !== state.currency) {
      return `total in ${chargeTotal.currency_code}, not the lifecycle's ${state.currency}: not booked`;
    }
    return learnFromChargeTotal(state, event, event.captureId, chargeTotal, source);
  }
  if (captureStatus && event.captureId && state.sharedCaptureIds) {
    // One charge holds several of the lifecycle's captures: its event cannot say which one it reports.
    return `capture ${event.captureId} is the provider's shared id of this authorization's captures: they are booked from the capture answers`;
  }
  if (captureStatus && event.captureId) {
    const known = state.captures.find((capture) => capture.id === event.captureId);
    const ofEarlier = !known && event.authorizationId !== state.currentAuthorizationId;
    if (ofEarlier && !heldEarlier(state, event.authorizationId)) {
      return `capture of authorization ${event.authorizationId}, not the current one`;
    }
    if (known?.status === captureStatus) return `capture ${known.id} is already ${captureStatus}`;
    if (known && !canMove(known.status, captureStatus)) {
      return `capture ${known.id} is ${known.status}; ${captureStatus} would move it backwards`;
    }
    if (known) return moveCapture(state, known, captureStatus, event, source);
    if (!event.amount) return 'capture event without an amount';
    if (madeBeforeStart(state, event.createTime)) {
      return 'capture made before the lifecycle started: counted in what was captured then';
    }
    applyCapture(
      state,
      {
        id: event.captureId,
        status: captureStatus,
        amount: event.amount,
        final_capture: event.finalCapture,
        create_time: event.createTime,
      },
      { amount: event.amount, finalCapture: event.finalCapture ?? false, source },
      ofEarlier ? event.authorizationId : state.currentAuthorizationId,
    );
    return undefined;
  }
  if (event.eventType === 'authorization.voided') {
    if (event.authorizationId !== state.currentAuthorizationId) {
      return `authorization ${event.authorizationId} is no longer current (now ${state.currentAuthorizationId})`;
    }
    if (isTerminal(state)) return `lifecycle already ${state.status}`;
    if (state.captures.some(holdsMoney)) return 'money was already captured; a void cannot undo it';
    markEnded(state, 'VOIDED', source, event.createTime);
    return undefined;
  }
  return 'event type the lifecycle does not act on';
}

/**
 * A known capture's event: a pending capture completes or is declined. A capture event that reports it
 * refunded or reversed moves no money: its refunds and reversals are booked from their own events.
 */
function moveCapture(
  state: LifecycleState,
  capture: CaptureRecord,
  status: CaptureRecordStatus,
  event: PaymentEvent,
  source: MovementSource,
): string | undefined {
  const movement = {
    reference: capture.id,
    source,
    at: timeOf(event.createTime),
  } as const;
  if (status === 'DECLINED') {
    book(state, movementOf(state, capture.amount.value, { ...movement, kind: 'capture-declined' }));
    return undefined;
  }
  if (status === 'COMPLETED') {
    book(state, movementOf(state, capture.amount.value, { ...movement, kind: 'capture-completed' }));
    return undefined;
  }
  return `capture ${capture.id} reported ${status}: its refunds and reversals are booked from their own events`;
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
 * Books what the shared charge captured beyond what the lifecycle booked into it as one learned capture (see
 * shared-charge.ts). An authorization.captured event also says that the authorization takes no more captures.
 */
function learnFromChargeTotal(
  state: LifecycleState,
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
  const booked = bookedIntoCharge(state, chargeId);
  const unexplained = (minorUnitsOf(state, total.value) ?? 0n) - booked;
  if (unexplained > 0n) {
    const amount = amountOf(state, unexplained);
    applyCapture(
      state,
      {
        id: nextCaptureId(state, chargeId),
        status: 'COMPLETED',
        amount,
        final_capture: final,
        create_time: event.createTime,
      },
      { amount, finalCapture: final, chargeId, learnedFromTotal: true, source },
      authorizationId,
    );
    return undefined;
  }
  const remaining = minorUnitsOrZero(state, state.remainingAmount);
  if (final && authorizationId === state.currentAuthorizationId && remaining > 0n && !isTerminal(state)) {
    // The authorization takes no more captures: what remains of its hold is released.
    const at = timeOf(event.createTime);
    releaseRest(state, {
      reason: 'final-capture',
      reference: chargeId,
      of: authorizationId,
      source,
      at,
    });
    return undefined;
  }
  return `charge ${chargeId} captured ${total.value} in all: booked already`;
}

/**
 * Refund events parked on shared charges, applied now if the charges' captures can take them: what was just
 * booked (a refund that came back, a dispute won, a capture) may make room for them. Run after each booking
 * from outside the ledger: an event, a read, the lifecycle's own capture.
 */
function applyRefundsAwaitingCharges(state: LifecycleState): void {
  const charges = new Set(state.refundsAwaitingCapture?.map((event) => event.captureId));
  for (const chargeId of charges) {
    if (capturesOfCharge(state, chargeId).length > 0) applyRefundsAwaitingCharge(state, chargeId);
  }
}

/** Refund events parked on the shared charge's own id, applied now if the charge's captures can take them. */
function applyRefundsAwaitingCharge(state: LifecycleState, chargeId: string): void {
  const waiting = state.refundsAwaitingCapture?.filter((event) => event.captureId === chargeId) ?? [];
  for (const event of waiting) {
    const captureId = captureOfSharedId(state, event);
    if (captureId !== chargeId) decideRefund(state, { ...event, captureId });
    else if (spreadOverCharge(state, event) === null) continue;
    state.refundsAwaitingCapture = state.refundsAwaitingCapture?.filter((each) => each !== event);
  }
  if (state.refundsAwaitingCapture?.length === 0) state.refundsAwaitingCapture = undefined;
}

/**
 * A refund or dispute of a shared charge that names none of the charge's several captures (one made in the
 * dashboard, the payer's bank's): applied in portions over the charge's captures (refundPortions), each a
 * refund record of its own, `<refund>/<capture>`; a later event of the same refund (a new status) updates its
 * portions. Null when it is not such an event, or when the captures cannot take it all yet.
 */
function spreadOverCharge(
  state: LifecycleState,
  event: RefundEvent,
  source: MovementSource = 'event',
): string | undefined | null {
  const chargeId = event.captureId;
  const recorded = state.refunds?.filter((refund) => refund.id.startsWith(`${event.refundId}/`)) ?? [];
  if (recorded.length === 0 && capturesOfCharge(state, chargeId).length < 2) return null;
  const portions = recorded.length
    ? recorded.map((refund) => ({ captureId: refund.captureId, amount: refund.amount.value }))
    : event.amount && refundPortions(state, chargeId, event.amount.value);
  if (!portions) return null;
  const notes = portions.map((portion) =>
    decideRefund(
      state,
      {
        ...event,
        refundId: `${event.refundId}/${portion.captureId}`,
        captureId: portion.captureId,
        amount: amountOf(state, minorUnitsOf(state, portion.amount) ?? 0n),
      },
      source,
    ),
  );
  return notes.every((note) => note !== undefined) ? notes[0] : undefined;
}

/**
 * The lifecycle's capture a refund event of a shared capture id concerns: the one its refund was sent for
 * (answered, or sent and not answered yet: a refund of the charge of that amount), or the charge's only
 * capture, unless the event gives back more than that capture can (the charge has another capture the
 * lifecycle is still to learn); otherwise the shared id, which the lifecycle does not hold.
 */
function captureOfSharedId(state: LifecycleState, event: RefundEvent): string {
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
  const ofCharge = capturesOfCharge(state, chargeId);
  const only = ofCharge.length === 1 ? ofCharge[0] : undefined;
  if (!only) return chargeId;
  const givesBack = ['refund', 'dispute-withdrawn'].includes(movementOfRefundEvent(event));
  const asked = event.amount ? minorUnitsOrZero(state, event.amount.value) : 0n;
  return givesBack && asked > minorUnitsOrZero(state, refundableAmount(state, only)) ? chargeId : only.id;
}

/** Whether the lifecycle held this authorization before a reauthorization replaced it. */
function heldEarlier(state: LifecycleState, authorizationId: string | undefined): boolean {
  return state.reauthorizations.some(
    (reauthorization) => reauthorization.fromAuthorizationId === authorizationId,
  );
}

/** Whether a capture made at `createTime` was counted in what the provider said was captured at start. */
function madeBeforeStart(state: LifecycleState, createTime: string | undefined): boolean {
  const read = state.ledger.movements.find(
    (movement) => movement.kind === 'capture' && movement.source === 'read',
  );
  if (!read || !createTime) return false;
  return Date.parse(createTime) < Date.parse(read.at);
}

/**
 * A refund or dispute event: its resource is the refund or dispute, whose capture is one of the lifecycle's.
 * What it moves is its adapter's translation (event.movement): a refund, one that came back (its status
 * FAILED or CANCELLED), funds a dispute withdrew or reinstated (CANCELLED), an inquiry that moves nothing.
 */
function decideRefund(
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

// Capture statuses only move forwards: PENDING → COMPLETED|DECLINED → (PARTIALLY_)REFUNDED|REVERSED.
const captureRank: Record<CaptureRecordStatus, number> = {
  PENDING: 0,
  COMPLETED: 1,
  DECLINED: 1,
  FAILED: 1,
  PARTIALLY_REFUNDED: 2,
  REFUNDED: 3,
  REVERSED: 3,
};

function canMove(from: CaptureRecordStatus, to: CaptureRecordStatus): boolean {
  return captureRank[to] > captureRank[from] && !(from === 'DECLINED' || from === 'FAILED');
}
