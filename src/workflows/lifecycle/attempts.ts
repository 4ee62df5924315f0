import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { toMinorUnits } from '../../currency-decimals';
import type { Money } from '../../providers/resources';
import type { LifecycleState, PendingAttempt, RequestFingerprint } from './definitions';

// Keyed provider calls in flight, recorded in the state before the call and cleared when the answer comes:
// what binds the recovery of a lost answer to the request (and key) that lost it.

// Bounds the attempts a lifecycle remembers; each is a request whose caller has not had its answer yet.
const PENDING_ATTEMPTS = 100;

export function beginAttempt(state: LifecycleState, attempt: PendingAttempt): void {
  const others = state.pendingAttempts.filter((each) => !isSame(each, attempt));
  state.pendingAttempts = [...others, attempt].slice(-PENDING_ATTEMPTS);
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

/** The pending attempt this retry repeats: same operation, same key, same request. */
export function pendingAttempt(
  state: LifecycleState,
  operation: PendingAttempt['operation'],
  idempotencyKey: string | undefined,
  request: RequestFingerprint,
): PendingAttempt | undefined {
  if (!idempotencyKey) return undefined;
  return state.pendingAttempts.find(
    (attempt) =>
      attempt.operation === operation &&
      attempt.idempotencyKey === idempotencyKey &&
      sameRequest(attempt.request, request),
  );
}

/** Same currency and the same amount in minor units. */
export function sameMoney(one: Money, other: Money): boolean {
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
