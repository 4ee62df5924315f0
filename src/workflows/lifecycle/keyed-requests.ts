import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { formatMinorUnits, toMinorUnits } from '../../currency-decimals';
import { providerRequestIdRetention } from '../../duration-bounds';
import type { VoidRequest } from '../../providers/port';
import type { Money } from '../../providers/resources';
import {
  LifecycleFailure,
  type CaptureInput,
  type KeyedAnswer,
  type KeyedAnswerLookup,
  type KeyedAnswerQuestion,
  type LifecycleOperation,
  type LifecycleState,
  type PendingAttempt,
  type PendingCapture,
  type PendingRefund,
  type ReauthorizeInput,
  type RefundInput,
  type RequestFingerprint,
  type VoidInput,
} from './definitions';
import { holdsMoney, minorUnitsOrZero } from './money';
import { voidTarget } from './state';
import { learnedInCharges, providerCaptureId } from './shared-charge';
import { captureAmount, refundAmount, refuse } from './validation';

// A keyed request from the caller's Idempotency-Key to the provider's, in the order a command meets them:
// the answer kept under the key (as Stripe keeps them: a retry within the retention gets the first answer, a
// key reused for another request is refused, a failed attempt is forgotten), the provider call it plans (a new
// one under a key derived from the caller's, or the pending one whose answer was lost, sent again), that call
// recorded as pending until its answer comes, and the lost answer's claim on what a webhook reported of it.

// Bounds the answers a lifecycle remembers: a new key is refused rather than one forgotten, so a forgotten
// key is never the provider's stale replay.
const KEYED_ANSWERS = 500;
// Bounds the attempts a lifecycle remembers; each is a request whose caller has not had its answer yet.
const PENDING_ATTEMPTS = 100;

// Capture, refund, reauthorize and increment move money: a keyless retry would move it again.
const keyRequired: readonly LifecycleOperation[] = ['capture', 'refund', 'reauthorize', 'increment'];

/** The request as a retry must repeat it: the fields given, amounts with the currency's decimals. */
export function requestFingerprint(
  request: CaptureInput | ReauthorizeInput | VoidInput | RefundInput,
  currency: string,
): RequestFingerprint {
  const { idempotencyKey: _idempotencyKey, ...fields } = request as CaptureInput;
  const fingerprint: RequestFingerprint = {};
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const minorUnits = name === 'amount' ? toMinorUnits(String(value), currency) : undefined;
    fingerprint[name] = minorUnits === undefined ? value : formatMinorUnits(minorUnits, currency);
  }
  return fingerprint;
}

/** Why a retry under a remembered key is not the same request (naming the field), or undefined if it is. */
function keyReuseConflict(
  first: Pick<KeyedAnswer, 'idempotencyKey' | 'operation' | 'request'>,
  operation: LifecycleOperation,
  request: RequestFingerprint,
): string | undefined {
  const reused = `Idempotency-Key "${first.idempotencyKey}" was first used`;
  if (first.operation !== operation) return `${reused} for a ${first.operation}, not a ${operation}`;
  for (const field of new Set([...Object.keys(first.request), ...Object.keys(request)])) {
    const before = first.request[field];
    const now = request[field];
    if (before !== now) {
      const shown = (value: unknown) => (value === undefined ? 'not given' : JSON.stringify(value));
      return `${reused} with ${field} ${shown(before)}; this request has ${field} ${shown(now)}`;
    }
  }
  return undefined;
}

/** The answer remembered under a key, while its retention lasts at `now`. */
function rememberedAnswer(
  state: LifecycleState,
  idempotencyKey: string,
  now: number,
): KeyedAnswer | undefined {
  return state.keyedAnswers.find(
    (entry) => entry.idempotencyKey === idempotencyKey && Date.parse(entry.keptUntil) > now,
  );
}

/** The query's answer: what the lifecycle remembers under the question's key, judged at the caller's time. */
export function keyedAnswer(state: LifecycleState, question: KeyedAnswerQuestion): KeyedAnswerLookup {
  const remembered = rememberedAnswer(state, question.idempotencyKey, question.at);
  if (!remembered) return null;
  const request = requestFingerprint(question.request, state.currency);
  const conflict = keyReuseConflict(remembered, question.operation, request);
  return conflict ? { conflict } : { answer: remembered.answer };
}

type Running = Pick<KeyedAnswer, 'idempotencyKey' | 'operation' | 'request'> & { answer: Promise<unknown> };

/**
 * Payment-grade idempotency under the caller's key. Each attempt is its own Update; the key names the
 * answer. A key answered within its retention gets that answer; a key still running makes the retry wait
 * for the same answer; a key reused with other parameters is refused; a failed attempt is forgotten, so its
 * retry reaches the provider again (under the same key).
 */
export class KeyedRequests {
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly state: LifecycleState,
    private readonly retentionMs: number,
  ) {}

  /**
   * For validators: refuses a key reused with other parameters, and answers whether the key is already
   * answered or running (then the state need not allow the request again).
   */
  isKnown(
    operation: LifecycleOperation,
    idempotencyKey: string | undefined,
    request: RequestFingerprint,
  ): boolean {
    if (!idempotencyKey) {
      if (keyRequired.includes(operation)) {
        refuse(
          LifecycleFailure.invalidRequest,
          `Idempotency-Key: required for a ${operation}, so that its retry cannot ${operation} again`,
        );
      }
      return false;
    }
    const now = Date.now();
    const first = rememberedAnswer(this.state, idempotencyKey, now) ?? this.running.get(idempotencyKey);
    if (!first) {
      this.assertRoomFor(idempotencyKey, now);
      return false;
    }
    const conflict = keyReuseConflict(first, operation, request);
    if (conflict) refuse(LifecycleFailure.keyReused, conflict);
    return true;
  }

  /**
   * Refuses a key whose answer is no longer kept (the provider may still replay its request) and, once the
   * lifecycle keeps as many answers as it may, any new key.
   */
  private assertRoomFor(idempotencyKey: string, now: number): void {
    const forgotten = this.state.keyedAnswers.find((entry) => entry.idempotencyKey === idempotencyKey);
    if (forgotten) {
      refuse(
        LifecycleFailure.stateForbids,
        `Idempotency-Key "${idempotencyKey}": its answer was kept until ${forgotten.keptUntil} and is no longer known; use a new key`,
      );
    }
    const kept = this.state.keyedAnswers.filter((entry) => Date.parse(entry.keptUntil) > now).length;
    if (kept + this.running.size >= KEYED_ANSWERS) {
      refuse(
        LifecycleFailure.stateForbids,
        `Idempotency-Key "${idempotencyKey}": this lifecycle already keeps ${KEYED_ANSWERS} answers, each as long as the provider honours its request id; no new key is taken until one expires`,
      );
    }
  }

  /** Runs `work` once per key: a retry gets the remembered or running answer. Without a key, it runs. */
  async once<T>(
    operation: LifecycleOperation,
    idempotencyKey: string | undefined,
    request: RequestFingerprint,
    work: () => Promise<T>,
  ): Promise<T> {
    if (!idempotencyKey) return work();
    const remembered = rememberedAnswer(this.state, idempotencyKey, Date.now());
    if (remembered) return remembered.answer as T;
    const running = this.running.get(idempotencyKey);
    if (running) return running.answer as Promise<T>;

    const answer = work();
    this.running.set(idempotencyKey, { idempotencyKey, operation, request, answer });
    try {
      const answered = await answer;
      this.remember({ idempotencyKey, operation, request, answer: answered });
      return answered;
    } finally {
      this.running.delete(idempotencyKey);
    }
  }

  /** Kept at least as long as the provider honours the request the answer came from. */
  private remember(entry: Omit<KeyedAnswer, 'keptUntil'>): void {
    const now = Date.now();
    const kept = this.state.keyedAnswers.filter((answer) => Date.parse(answer.keptUntil) > now);
    const retention = Math.max(this.retentionMs, providerRequestIdRetention);
    kept.push({ ...entry, keptUntil: new Date(now + retention).toISOString() });
    this.state.keyedAnswers = kept;
  }
}

// The provider's key of a call is `<resource>/<operation>/<caller's key>`: resource ids and keys hold no "/",
// so no two (lifecycle, operation, key) share one; at most 64 + 13 + 64 characters, inside Stripe's 255. A
// call with no caller's key (the timer's) derives it from the workflow and a count. A retry of the call, or
// of the Update under the same key, is answered the provider's first answer instead of acting twice.
function providerKey(resourceId: string, operation: LifecycleOperation, idempotencyKey: string): string {
  return `${resourceId}/${operation}/${idempotencyKey}`;
}

/** A reauthorization's key: the original authorization and the caller's key, or the reason and its count. */
export function reauthorizeIdempotencyKey(
  state: LifecycleState,
  reason: 'timer' | 'request',
  idempotencyKey?: string,
): string {
  if (idempotencyKey) return providerKey(state.authorizationId, 'reauthorize', idempotencyKey);
  return `${state.workflowId}-reauthorize-${reason}-${state.reauthorizations.length + 1}`;
}

/** An incremental authorization's key: the original authorization and the caller's key. */
export function incrementIdempotencyKey(state: LifecycleState, idempotencyKey: string): string {
  return providerKey(state.authorizationId, 'increment', idempotencyKey);
}

/** One per authorization: a void can only happen once, and a refused void stays refused. */
export function voidIdempotencyKey(state: LifecycleState): string {
  return `${state.workflowId}-void`;
}

/** The lifecycle's void (of voidTarget): a void, a completed order and the expiry policy send the same one. */
export function voidRequest(state: LifecycleState): VoidRequest {
  return { authorizationId: voidTarget(state), idempotencyKey: voidIdempotencyKey(state) };
}

/**
 * The provider key of the expiry policy's capture of what remains: like a void's, of the workflow, never of the
 * form `<authorization>/capture/<key>` a caller's Idempotency-Key (`expiry-policy` is one) would give.
 */
export function expiryCaptureKey(state: LifecycleState): string {
  return `${state.workflowId}-expiry-capture`;
}

/**
 * The capture a keyed request sends: the pending attempt of the same key and request, sent again under its
 * key (its answer was lost), or a new one of what the request asks, under the key derived from the caller's.
 * A resent capture that a webhook already reported is claimed as it is; otherwise it must still fit what
 * remains. A new one is sent in the workflow task that plans it: its sentAt is now.
 */
export function capturePlan(
  state: LifecycleState,
  request: CaptureInput & { idempotencyKey: string },
  fingerprint: RequestFingerprint,
): PendingCapture {
  const pending = pendingAttempt(state, 'capture', request.idempotencyKey, fingerprint);
  if (pending) {
    if (!claimsCapture(state, pending)) captureAmount(state, { amount: pending.sent.amount.value });
    return pending;
  }
  const amount = captureAmount(state, request);
  return {
    operation: 'capture',
    idempotencyKey: request.idempotencyKey,
    request: fingerprint,
    sentAt: new Date().toISOString(),
    sent: {
      authorizationId: state.currentAuthorizationId,
      amount: { currency_code: state.currency, value: amount },
      finalCapture: request.finalCapture ?? (!withinRemaining(state, amount) || lastCapture(state)),
      idempotencyKey: providerKey(state.authorizationId, 'capture', request.idempotencyKey),
      ...(request.invoiceId && { invoiceId: request.invoiceId }),
      ...(request.noteToPayer && { noteToPayer: request.noteToPayer }),
    },
  };
}

/** The refund a keyed request sends: like a capture's (capturePlan), checked against what its capture has left. */
export function refundPlan(
  state: LifecycleState,
  request: RefundInput & { idempotencyKey: string },
  fingerprint: RequestFingerprint,
): PendingRefund {
  const pending = pendingAttempt(state, 'refund', request.idempotencyKey, fingerprint);
  if (pending) {
    if (!claimsRefund(state, pending)) {
      refundAmount(state, { captureId: pending.captureId, amount: pending.sent.amount.value });
    }
    return pending;
  }
  const amount = refundAmount(state, request);
  return {
    operation: 'refund',
    idempotencyKey: request.idempotencyKey,
    request: fingerprint,
    captureId: request.captureId,
    sentAt: new Date().toISOString(),
    sent: {
      captureId: providerCaptureId(state, request.captureId),
      amount: { currency_code: state.currency, value: amount },
      idempotencyKey: providerKey(request.captureId, 'refund', request.idempotencyKey),
      ...(request.invoiceId && { invoiceId: request.invoiceId }),
      ...(request.noteToPayer && { noteToPayer: request.noteToPayer }),
    },
  };
}

/** Whether a capture of `amount` leaves some of the hold: one of all that remains, or beyond it, is final. */
function withinRemaining(state: LifecycleState, amount: string): boolean {
  return minorUnitsOrZero(state, amount) < minorUnitsOrZero(state, state.remainingAmount);
}

/**
 * Whether the next capture is the last the provider takes on the authorization: then it is final, so a
 * provider that takes one capture (Stripe without multicapture) is never asked to keep the rest.
 */
function lastCapture(state: LifecycleState): boolean {
  return state.capturesEndAtMax === true && state.captures.length + 1 >= state.maxCaptures;
}

/** The pending attempt this retry repeats: same operation, same key, same request. */
export function pendingAttempt<Operation extends PendingAttempt['operation']>(
  state: LifecycleState,
  operation: Operation,
  idempotencyKey: string,
  request: RequestFingerprint,
): Extract<PendingAttempt, { operation: Operation }> | undefined {
  return state.pendingAttempts.find(
    (attempt): attempt is Extract<PendingAttempt, { operation: Operation }> =>
      attempt.operation === operation &&
      attempt.idempotencyKey === idempotencyKey &&
      sameRequest(attempt.request, request),
  );
}

/**
 * Records the call as sent and not answered: what binds the recovery of a lost answer to its key. Its sentAt,
 * the first send under its provider key, is when the provider's retention of the key starts.
 */
export function beginAttempt(state: LifecycleState, attempt: PendingAttempt): void {
  const others = state.pendingAttempts.filter((each) => !isSame(each, attempt));
  state.pendingAttempts = [...others, attempt].slice(-PENDING_ATTEMPTS);
}

// A retry of the activity under the key may still reach the provider a few minutes after the first send:
// the key counts as forgotten that much before the provider's retention ends (at most half of it).
const KEY_RETENTION_MARGIN_MS = 5 * 60 * 1000;

/**
 * Whether the provider may have forgotten the attempt's key at `now`: then the same call is a new capture or
 * refund at the provider.
 */
export function keyMayBeForgotten(state: LifecycleState, attempt: PendingAttempt, now: number): boolean {
  const retention = state.keyRetentionMs;
  const margin = Math.min(KEY_RETENTION_MARGIN_MS, retention / 2);
  return now >= Date.parse(attempt.sentAt) + retention - margin;
}

/**
 * The attempt sent again under a fresh provider key: its key plus `/resend-<n>`, which no first send has
 * (resource ids and caller keys hold no "/"), so the provider cannot take it for the first call. It is sent
 * now: the provider's retention of the new key starts.
 */
export function resentAttempt<Attempt extends PendingAttempt>(attempt: Attempt): Attempt {
  const resends = (attempt.resends ?? 0) + 1;
  const firstKey = attempt.sent.idempotencyKey.replace(/\/resend-\d+$/, '');
  return {
    ...attempt,
    sentAt: new Date().toISOString(),
    resends,
    sent: { ...attempt.sent, idempotencyKey: `${firstKey}/resend-${resends}` },
  };
}

/** The answer came (success or a refusal): the attempt is no longer pending. */
export function endAttempt(state: LifecycleState, attempt: PendingAttempt): void {
  state.pendingAttempts = state.pendingAttempts.filter((each) => !isSame(each, attempt));
}

/** Whether a failed call ended with a definite answer (the provider refused), rather than with none. */
export function isDefiniteFailure(error: unknown): boolean {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure && cause.nonRetryable === true;
}

/**
 * Whether a capture learnt only from a webhook may be the one the attempt made: one with the attempt's
 * amount or, into a shared charge, learnt captures of at least that amount in all (see shared-charge.ts).
 */
function claimsCapture(state: LifecycleState, attempt: PendingCapture): boolean {
  const { amount } = attempt.sent;
  if (state.sharedCaptureIds) {
    const learned = learnedInCharges(state);
    return learned > 0n && learned >= minorUnitsOrZero(state, amount.value);
  }
  return state.captures.some(
    (capture) =>
      capture.idempotencyKey === undefined && holdsMoney(capture) && sameMoney(capture.amount, amount),
  );
}

/** Whether a refund of the attempt's capture learnt only from a webhook, with its amount, may be its own. */
function claimsRefund(state: LifecycleState, attempt: PendingRefund): boolean {
  return (state.refunds ?? []).some(
    (refund) =>
      refund.captureId === attempt.captureId &&
      refund.kind === 'refund' &&
      refund.idempotencyKey === undefined &&
      sameMoney(refund.amount, attempt.sent.amount),
  );
}

/** Same currency and the same amount in minor units. */
function sameMoney(one: Money, other: Money): boolean {
  if (one.currency_code !== other.currency_code) return false;
  const minor = toMinorUnits(one.value, one.currency_code);
  return minor !== undefined && minor === toMinorUnits(other.value, other.currency_code);
}

function isSame(one: PendingAttempt, other: PendingAttempt): boolean {
  return one.operation === other.operation && one.idempotencyKey === other.idempotencyKey;
}

function sameRequest(one: RequestFingerprint, other: RequestFingerprint): boolean {
  const fields = new Set([...Object.keys(one), ...Object.keys(other)]);
  return [...fields].every((field) => one[field] === other[field]);
}
