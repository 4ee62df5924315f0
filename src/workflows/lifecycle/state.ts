import type { CaptureRequest } from '../../providers/port';
import type { Authorization, PaymentCapture, Refund } from '../../providers/resources';
import { formatMinorUnits, toMinorUnits } from '../../currency-decimals';
import {
  captureStatusByEvent,
  type CaptureRecordStatus,
  type DeadlineReasons,
  type CaptureRecord,
  type LifecycleState,
  type PaymentEvent,
  type PendingRefund,
  type RecordedEvent,
} from './definitions';
import { amountOf, holdsMoney, minorUnitsOf } from './money';
import {
  applyCapture,
  applyRefund,
  book,
  capturedAtStart,
  decideRefund,
  heldEarlier,
  isTerminal,
  movementOf,
  parkRefund,
  releaseRest,
  timeOf,
} from './bookings';
import { applyRefundsAwaitingCharges, decideChargeEvent, firstCaptureId, ownCapture } from './shared-charge';
import { figuresOf } from './ledger/figures';
import { beforeHoldEnds } from './hold-deadlines';
import type { Movement, MovementSource, ReleaseReason } from '../../providers/movements';

// Pure transitions of a lifecycle's state. The workflow calls them; they never do I/O. Money moves only by
// movements booked into the lifecycle's ledger (bookings.ts).

const RECENT_EVENTS = 50;
const SEEN_EVENT_IDS = 500;

/** The hold's own capture maximum, where its provider says one in the lifecycle's currency. */
function captureMaximumOf(state: LifecycleState, authorization: Authorization): string | undefined {
  const maximum = authorization.capture_maximum;
  return maximum?.currency_code === state.currency ? maximum.value : undefined;
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
  const shared = options.sharedChargeId && firstCaptureId(state, options.sharedChargeId);
  // Kept apart from the captures, unless it is one of a shared charge's: it is refunded through the charge.
  const reference = shared || `${authorization.id}/captured-before-start`;
  if (shared) {
    state.captures.push({
      id: reference,
      authorizationId: authorization.id,
      status: 'COMPLETED',
      amount: { currency_code: currency, value },
      finalCapture: false,
      createTime: read.at,
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
  const ofSharedId = decideChargeEvent(state, event, source);
  if (ofSharedId !== null) return ofSharedId;
  if (event.refundId && event.captureId) {
    const refund = { ...event, refundId: event.refundId, captureId: event.captureId };
    const held = state.captures.some((capture) => capture.id === refund.captureId);
    return held ? decideRefund(state, refund, source) : parkRefund(state, refund);
  }
  const captureStatus = captureStatusByEvent[event.eventType];
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

/** Whether a capture made at `createTime` was counted in what the provider said was captured at start. */
function madeBeforeStart(state: LifecycleState, createTime: string | undefined): boolean {
  const read = capturedAtStart(state);
  if (!read || !createTime) return false;
  return Date.parse(createTime) < Date.parse(read.at);
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
