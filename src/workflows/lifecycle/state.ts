import type { CaptureRequest } from '../../providers/port';
import type { Authorization, Money, PaymentCapture, Refund } from '../../providers/resources';
import { formatMinorUnits, toMinorUnits } from '../../currency-decimals';
import {
  captureStatusByEvent,
  terminalStatuses,
  type CaptureRecordStatus,
  type CaptureRecord,
  type LifecycleState,
  type LifecycleStatus,
  type PaymentEvent,
  type PendingRefund,
  type RecordedEvent,
  type RefundEvent,
  type RefundRecord,
} from './definitions';
import { amountOf, holdsMoney, minorUnitsOf } from './money';
import { hasRefunds, recordRefund } from './refunds';
import {
  bookedIntoCharge,
  capturesOfCharge,
  nextCaptureId,
  refundPortions,
  takeBackLearned,
} from './shared-charge';

// Pure transitions of a lifecycle's state. The workflow calls them; they never do I/O or read the clock.

const RECENT_EVENTS = 50;
const SEEN_EVENT_IDS = 500;
const REFUNDS_AWAITING_CAPTURE = 50;

export function isTerminal(state: LifecycleState): boolean {
  return terminalStatuses.includes(state.status);
}

/** Status and captured amount follow from the captures, once money was authorized and not voided. */
function settle(state: LifecycleState): void {
  const captured = state.captures
    .filter(holdsMoney)
    .reduce(
      (sum, capture) => sum + (minorUnitsOf(state, capture.amount.value) ?? 0n),
      minorUnitsOf(state, state.capturedAtStart?.amount ?? '0') ?? 0n,
    );
  state.capturedAmount = amountOf(state, captured).value;
  // A capture can land before a void or an expiry (its event comes after): it is counted, the ended status stays.
  if (state.status === 'VOIDED' || state.status === 'EXPIRED' || state.status === 'DENIED') return;
  const finalCaptureMade = state.captures.some((capture) => capture.finalCapture && holdsMoney(capture));
  const pending = state.captures.some((capture) => capture.status === 'PENDING');
  const remaining = minorUnitsOf(state, state.remainingAmount) ?? 0n;
  let status: LifecycleStatus;
  if (remaining === 0n || finalCaptureMade) status = pending ? 'CAPTURE_PENDING' : 'CAPTURED';
  else status = captured > 0n ? 'PARTIALLY_CAPTURED' : 'AUTHORIZED';
  state.status = status === 'CAPTURED' ? afterRefunds(state) : status;
}

/** A captured lifecycle's status once refunds and reversals of its captures are counted. */
function afterRefunds(state: LifecycleState): LifecycleStatus {
  const captures = state.captures.filter(holdsMoney);
  if (captures.some((capture) => capture.status === 'REVERSED')) return 'REVERSED';
  if (captures.length > 0 && captures.every((capture) => capture.status === 'REFUNDED')) return 'REFUNDED';
  if (captures.some((capture) => hasRefunds(state, capture) || capture.status === 'REFUNDED')) {
    return 'PARTIALLY_REFUNDED';
  }
  return 'CAPTURED';
}

/** Records a refund the provider answered (or reported) and what it does to the lifecycle's status. */
export function applyRefund(state: LifecycleState, refund: RefundRecord): void {
  recordRefund(state, refund);
  settle(state);
}

const manageableStatuses = ['CREATED', 'PARTIALLY_CAPTURED', 'PENDING'];

export function canManage(authorization: Authorization): boolean {
  return manageableStatuses.includes(authorization.status);
}

/**
 * The state of a lifecycle started on `authorization`; one partly captured starts with what its provider
 * says was captured (captured_amount, checked by the start) and the rest to capture.
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
    capturesEndAtMax?: LifecycleState['capturesEndAtMax'];
  },
  times: { createTime: string; reauthorizeAt: string; expiryPolicyAt: string; readAt?: string },
): LifecycleState {
  const { currency_code: currency, value: authorized } = authorization.amount;
  const captured = toMinorUnits(authorization.captured_amount?.value ?? '0', currency) ?? 0n;
  const remaining = capturable(authorization, (toMinorUnits(authorized, currency) ?? 0n) - captured);
  return {
    workflowId,
    authorizationId: authorization.id,
    provider: options.provider,
    ...(options.reauthorization !== undefined && { reauthorization: options.reauthorization }),
    ...(options.sharedCaptureIds !== undefined && { sharedCaptureIds: options.sharedCaptureIds }),
    currentAuthorizationId: authorization.id,
    orderId: options.orderId,
    ...(options.owner !== undefined && { owner: options.owner }),
    status: authorization.status === 'PARTIALLY_CAPTURED' ? 'PARTIALLY_CAPTURED' : 'AUTHORIZED',
    currency: authorization.amount.currency_code,
    authorizedAmount: authorization.amount.value,
    capturedAmount: formatMinorUnits(captured, currency),
    // Kept apart from the captures: the status and the captured amount, which follow from them, count it.
    ...(captured > 0n && {
      capturedAtStart: {
        amount: formatMinorUnits(captured, currency),
        asOf: times.readAt ?? times.createTime,
      },
    }),
    remainingAmount:
      captured === 0n && remaining === toMinorUnits(authorized, currency)
        ? authorized
        : formatMinorUnits(remaining > 0n ? remaining : 0n, currency),
    authorizationCreateTime: times.createTime,
    expirationTime: authorization.expiration_time,
    reauthorizeAt: times.reauthorizeAt,
    expiryPolicyAt: times.expiryPolicyAt,
    expiryPolicy: options.expiryPolicy,
    captures: [],
    reauthorizations: [],
    recentEvents: [],
    keyedAnswers: [],
    seenEventIds: [],
    maxCaptures: options.maxCaptures,
    ...(options.capturesEndAtMax && { capturesEndAtMax: true }),
    pendingAttempts: [],
  };
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
  },
  authorizationId = state.currentAuthorizationId,
): void {
  const known = state.captures.find((existing) => existing.id === capture.id);
  // A capture of an earlier authorization (made before a reauthorization) took none of the current one's amount.
  const ofCurrent = authorizationId === state.currentAuthorizationId;
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
  if (known)
    Object.assign(known, {
      ...record,
      idempotencyKey: record.idempotencyKey ?? known.idempotencyKey,
      status: known.status === 'PENDING' ? record.status : known.status,
    });
  else {
    state.captures.push(record);
    if (holdsMoney(record) && ofCurrent) {
      const left =
        (minorUnitsOf(state, state.remainingAmount) ?? 0n) - (minorUnitsOf(state, record.amount.value) ?? 0n);
      state.remainingAmount = amountOf(state, left > 0n ? left : 0n).value;
    }
  }
  if (record.finalCapture && holdsMoney(record) && ofCurrent)
    state.remainingAmount = amountOf(state, 0n).value;
  settle(state);
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
  state.reauthorizations.push({
    fromAuthorizationId: state.currentAuthorizationId,
    toAuthorizationId: authorization.id,
    amount: { currency_code: authorization.amount.currency_code, value: authorization.amount.value },
    reason,
    at,
  });
  state.currentAuthorizationId = authorization.id;
  const held = toMinorUnits(authorization.amount.value, state.currency) ?? 0n;
  state.remainingAmount = formatMinorUnits(capturable(authorization, held), state.currency);
  state.expirationTime = authorization.expiration_time ?? state.expirationTime;
  state.reauthorizeAt = undefined;
  // A new authorization is a new hold (Stripe): the expiry policy follows its end, an hour before it.
  if (state.reauthorization === 'new-authorization' && authorization.expiration_time) {
    const policyAt = Date.parse(authorization.expiration_time) - HOLD_END_MARGIN_MS;
    if (Number.isFinite(policyAt)) state.expiryPolicyAt = new Date(policyAt).toISOString();
  }
}

/**
 * What can still be captured of a hold: `uncaptured`, or less when the provider says so (Stripe's
 * amount_capturable is 0 once an intent succeeded, whatever it did not capture).
 */
export function capturable(authorization: Authorization, uncaptured: bigint): bigint {
  const { amount_capturable: stated } = authorization;
  if (!stated || stated.currency_code !== authorization.amount.currency_code) return uncaptured;
  const minor = toMinorUnits(stated.value, stated.currency_code);
  return minor !== undefined && minor < uncaptured ? minor : uncaptured;
}

/** How long before a hold's end the expiry policy runs when the hold ends before the policy's own time. */
export const HOLD_END_MARGIN_MS = 60 * 60 * 1000;

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
  return own;
}

/** Books the provider's answer to the lifecycle's own refund. */
export function bookRefund(state: LifecycleState, attempt: PendingRefund, answer: Refund): void {
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

export function markEnded(state: LifecycleState, status: 'VOIDED' | 'EXPIRED' | 'DENIED'): void {
  state.status = status;
  state.remainingAmount = amountOf(state, 0n).value;
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

  recorded.note = decide(state, event);
  recorded.applied = recorded.note === undefined;
  state.recentEvents.push(recorded);
  if (state.recentEvents.length > RECENT_EVENTS) state.recentEvents.shift();
  return recorded;
}

function decide(state: LifecycleState, event: PaymentEvent): string | undefined {
  if (event.amount && event.amount.currency_code !== state.currency) {
    return `amount in ${event.amount.currency_code}, not the lifecycle's ${state.currency}: not booked`;
  }
  if (event.refundId && event.captureId) {
    const captureId = state.sharedCaptureIds
      ? captureOfSharedId(state, event.refundId, event.captureId)
      : event.captureId;
    const refund = { ...event, refundId: event.refundId, captureId };
    const held = state.captures.some((capture) => capture.id === captureId);
    const spread = !held && state.sharedCaptureIds ? spreadOverCharge(state, refund) : null;
    if (spread !== null) return spread;
    if (!held) {
      state.refundsAwaitingCapture = [...(state.refundsAwaitingCapture ?? []), refund].slice(
        -REFUNDS_AWAITING_CAPTURE,
      );
      return `waits for capture ${captureId}, which this lifecycle does not hold yet`;
    }
    return decideRefund(state, refund);
  }
  const captureStatus = captureStatusByEvent[event.eventType];
  const chargeTotal = state.sharedCaptureIds && event.captureId ? totalOfCharge(event) : undefined;
  if (chargeTotal && event.captureId) {
    if (chargeTotal.currency_code !== state.currency) {
      return `total in ${chargeTotal.currency_code}, not the lifecycle's ${state.currency}: not booked`;
    }
    return learnFromChargeTotal(state, event, event.captureId, chargeTotal);
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
    if (known) {
      known.status = captureStatus;
      if (captureStatus === 'DECLINED') {
        const back =
          (minorUnitsOf(state, state.remainingAmount) ?? 0n) +
          (minorUnitsOf(state, known.amount.value) ?? 0n);
        state.remainingAmount = amountOf(state, back).value;
        known.finalCapture = false;
      }
      settle(state);
      return undefined;
    }
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
      { amount: event.amount, finalCapture: event.finalCapture ?? false },
      ofEarlier ? event.authorizationId : state.currentAuthorizationId,
    );
    return undefined;
  }
  if (event.eventType === 'PAYMENT.AUTHORIZATION.VOIDED') {
    if (event.authorizationId !== state.currentAuthorizationId) {
      return `authorization ${event.authorizationId} is no longer current (now ${state.currentAuthorizationId})`;
    }
    if (isTerminal(state)) return `lifecycle already ${state.status}`;
    if (state.captures.some(holdsMoney)) return 'money was already captured; a void cannot undo it';
    markEnded(state, 'VOIDED');
    return undefined;
  }
  return 'event type the lifecycle does not act on';
}

/**
 * What a shared charge captured in all, by its event: a completed capture's amount (Stripe's charge.captured
 * carries the charge's amount_captured) or the authorization's captured total (its payment_intent events).
 */
function totalOfCharge(event: PaymentEvent): Money | undefined {
  if (event.capturedTotal) return event.capturedTotal;
  return event.eventType === 'PAYMENT.CAPTURE.COMPLETED' ? event.amount : undefined;
}

/**
 * Books what the shared charge captured beyond what the lifecycle booked into it as one learned capture (see
 * shared-charge.ts). PAYMENT.AUTHORIZATION.CAPTURED (Stripe's payment_intent.succeeded) also says that the
 * authorization takes no more captures.
 */
function learnFromChargeTotal(
  state: LifecycleState,
  event: PaymentEvent,
  chargeId: string,
  total: Money,
): string | undefined {
  const authorizationId = event.authorizationId ?? state.currentAuthorizationId;
  const ofLifecycle =
    authorizationId === state.authorizationId ||
    authorizationId === state.currentAuthorizationId ||
    heldEarlier(state, authorizationId);
  if (!ofLifecycle) return `charge of authorization ${authorizationId}, which this lifecycle does not hold`;
  const final = event.eventType === 'PAYMENT.AUTHORIZATION.CAPTURED';
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
      { amount, finalCapture: final, chargeId, learnedFromTotal: true },
      authorizationId,
    );
    applyRefundsAwaitingCharge(state, chargeId);
    return undefined;
  }
  const remaining = minorUnitsOf(state, state.remainingAmount) ?? 0n;
  if (final && authorizationId === state.currentAuthorizationId && remaining > 0n && !isTerminal(state)) {
    state.remainingAmount = amountOf(state, 0n).value;
    settle(state);
    return undefined;
  }
  return `charge ${chargeId} captured ${total.value} in all: booked already`;
}

/** Refund events parked on the shared charge's own id, applied now if the charge's captures can take them. */
function applyRefundsAwaitingCharge(state: LifecycleState, chargeId: string): void {
  const waiting = state.refundsAwaitingCapture?.filter((event) => event.captureId === chargeId) ?? [];
  for (const event of waiting) {
    const captureId = captureOfSharedId(state, event.refundId, chargeId);
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
function spreadOverCharge(state: LifecycleState, event: RefundEvent): string | undefined | null {
  const chargeId = event.captureId;
  const recorded = state.refunds?.filter((refund) => refund.id.startsWith(`${event.refundId}/`)) ?? [];
  if (recorded.length === 0 && capturesOfCharge(state, chargeId).length < 2) return null;
  const portions = recorded.length
    ? recorded.map((refund) => ({ captureId: refund.captureId, amount: refund.amount.value }))
    : event.amount && refundPortions(state, chargeId, event.amount.value);
  if (!portions) return null;
  const notes = portions.map((portion) =>
    decideRefund(state, {
      ...event,
      refundId: `${event.refundId}/${portion.captureId}`,
      captureId: portion.captureId,
      amount: amountOf(state, minorUnitsOf(state, portion.amount) ?? 0n),
    }),
  );
  return notes.every((note) => note !== undefined) ? notes[0] : undefined;
}

/**
 * The lifecycle's capture a refund event of a shared capture id concerns: the one its refund was sent for,
 * or the charge's only capture; otherwise the shared id, which the lifecycle does not hold.
 */
function captureOfSharedId(state: LifecycleState, refundId: string, chargeId: string): string {
  const refunded = state.refunds?.find((refund) => refund.id === refundId);
  if (refunded) return refunded.captureId;
  const ofCharge = state.captures.filter((capture) => capture.chargeId === chargeId);
  return ofCharge.length === 1 && ofCharge[0] ? ofCharge[0].id : chargeId;
}

/** Whether the lifecycle held this authorization before a reauthorization replaced it. */
function heldEarlier(state: LifecycleState, authorizationId: string | undefined): boolean {
  return state.reauthorizations.some(
    (reauthorization) => reauthorization.fromAuthorizationId === authorizationId,
  );
}

/** Whether a capture made at `createTime` was counted in what the provider said was captured at start. */
function madeBeforeStart(state: LifecycleState, createTime: string | undefined): boolean {
  if (!state.capturedAtStart || !createTime) return false;
  return Date.parse(createTime) < Date.parse(state.capturedAtStart.asOf);
}

/** A refund or reversal event: its resource is the refund, whose capture is one of the lifecycle's. */
function decideRefund(state: LifecycleState, event: RefundEvent): string | undefined {
  if (!state.captures.some((capture) => capture.id === event.captureId)) {
    return `refund of capture ${event.captureId}, which this lifecycle does not hold`;
  }
  const known = state.refunds?.find((refund) => refund.id === event.refundId);
  const kind = event.eventType === 'PAYMENT.CAPTURE.REVERSED' ? 'reversal' : 'refund';
  const status = event.status ?? 'COMPLETED';
  if (known && known.kind === kind && known.status === status)
    return `refund ${known.id} is already recorded`;
  const amount = event.amount ?? known?.amount;
  if (!amount) return 'refund event without an amount';
  applyRefund(state, {
    id: event.refundId,
    captureId: event.captureId,
    kind,
    status,
    amount,
    createTime: event.createTime,
  });
  return undefined;
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
