import { ApplicationFailure } from '@temporalio/workflow';
import { currencyDecimals } from '../../currency-decimals';
import { durationBounds, durationRule, isWithinBounds, type DurationField } from '../../duration-bounds';
import {
  LifecycleFailure,
  type CaptureInput,
  type CaptureRecord,
  type LifecycleInput,
  type LifecycleState,
  type ReauthorizeInput,
} from './definitions';
import { amountOf, holdsMoney, isTerminal, minorUnitsOf } from './state';

// Checks a request against the state before anything enters history; each refusal names what was wrong.

export function refuse(type: string, message: string): never {
  throw ApplicationFailure.create({ type, message, nonRetryable: true });
}

/** Refuses a start whose durations are out of bounds (a timer must be able to hold them), naming the field. */
export function assertDurationsWithinBounds(input: LifecycleInput): void {
  for (const field of Object.keys(durationBounds) as DurationField[]) {
    const duration = input[field];
    if (duration !== undefined && !isWithinBounds(field, duration)) {
      refuse(
        LifecycleFailure.invalidRequest,
        `${field}: ${JSON.stringify(duration)} is not ${durationRule(field)}`,
      );
    }
  }
}

export function assertOpen(state: LifecycleState, what: string): void {
  if (isTerminal(state))
    refuse(LifecycleFailure.stateForbids, `cannot ${what}: the lifecycle is ${state.status}`);
}

/** Minor units of a requested amount; one that is not a positive amount in the lifecycle's currency is refused. */
function positiveAmount(state: LifecycleState, amount: string): bigint {
  const wanted = minorUnitsOf(state, amount);
  if (wanted === undefined || wanted <= 0n) {
    const decimals = currencyDecimals(state.currency);
    refuse(
      LifecycleFailure.invalidRequest,
      `amount: "${amount}" is not a positive amount in ${state.currency}, which has ${decimals} decimals`,
    );
  }
  return wanted;
}

/** The amount to capture, with the currency's decimals ("5" USD becomes "5.00"), validated against what remains. */
export function captureAmount(state: LifecycleState, request: CaptureInput): string {
  assertOpen(state, 'capture');
  const remaining = minorUnitsOf(state, state.remainingAmount) ?? 0n;
  if (remaining === 0n) refuse(LifecycleFailure.stateForbids, 'cannot capture: nothing remains to capture');
  if (request.amount === undefined) return state.remainingAmount;
  const wanted = positiveAmount(state, request.amount);
  if (wanted > remaining) {
    refuse(
      LifecycleFailure.stateForbids,
      `amount: ${request.amount} ${state.currency} is more than the ${state.remainingAmount} that remains`,
    );
  }
  return amountOf(state, wanted).value;
}

export function reauthorizeAmount(state: LifecycleState, request: ReauthorizeInput): string {
  assertOpen(state, 'reauthorize');
  if (request.amount === undefined) return state.remainingAmount;
  return amountOf(state, positiveAmount(state, request.amount)).value;
}

/**
 * The capture to ask the provider for: the request checked against what remains or, when the state no longer
 * allows it, the first attempt of this keyed request that a crashed worker lost the answer to.
 */
export function capturePlan(
  state: LifecycleState,
  request: CaptureInput,
): { amount: string; finalCapture?: boolean } {
  try {
    return { amount: captureAmount(state, request) };
  } catch (refusal) {
    const lost = unclaimedCapture(state, request);
    if (!lost) throw refusal;
    return { amount: lost.amount.value, finalCapture: lost.finalCapture };
  }
}

/**
 * A capture the provider made that no request of this lifecycle has claimed (learnt from a webhook), and that
 * fits the request: the first attempt of a keyed request whose answer was lost with a crashed worker. Its
 * retry may reach the provider again, whose Service-Request-Id idempotency answers that first capture.
 */
function unclaimedCapture(state: LifecycleState, request: CaptureInput): CaptureRecord | undefined {
  if (!request.idempotencyKey) return undefined;
  const wanted = request.amount === undefined ? undefined : minorUnitsOf(state, request.amount);
  return state.captures.find(
    (capture) =>
      capture.requestId === undefined &&
      holdsMoney(capture) &&
      (wanted === undefined || minorUnitsOf(state, capture.amount.value) === wanted),
  );
}
