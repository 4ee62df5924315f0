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
  type RefundInput,
  type RefundRecord,
} from './definitions';
import { refundableAmount } from './refunds';
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
 * retry may reach the provider again, whose idempotency under the same key answers that first capture.
 */
function unclaimedCapture(state: LifecycleState, request: CaptureInput): CaptureRecord | undefined {
  if (!request.idempotencyKey) return undefined;
  const wanted = request.amount === undefined ? undefined : minorUnitsOf(state, request.amount);
  return state.captures.find(
    (capture) =>
      capture.idempotencyKey === undefined &&
      holdsMoney(capture) &&
      (wanted === undefined || minorUnitsOf(state, capture.amount.value) === wanted),
  );
}

/** The amount to refund, in the lifecycle's currency, checked against what the capture has not had refunded. */
function refundAmount(state: LifecycleState, request: RefundInput): string {
  const capture = state.captures.find((candidate) => candidate.id === request.captureId);
  if (!capture) {
    refuse(
      LifecycleFailure.invalidRequest,
      `captureId: ${request.captureId} is not a capture of authorization ${state.authorizationId}`,
    );
  }
  const refundable = refundableAmount(state, capture);
  const left = minorUnitsOf(state, refundable) ?? 0n;
  const refundableStatus = capture.status === 'COMPLETED' || capture.status === 'PARTIALLY_REFUNDED';
  if (!refundableStatus || left === 0n) {
    refuse(LifecycleFailure.stateForbids, `cannot refund: capture ${capture.id} is ${capture.status}`);
  }
  if (request.amount === undefined) return refundable;
  const wanted = positiveAmount(state, request.amount);
  if (wanted > left) {
    refuse(
      LifecycleFailure.stateForbids,
      `amount: ${request.amount} ${state.currency} is more than the ${refundable} capture ${capture.id} has not had refunded`,
    );
  }
  return amountOf(state, wanted).value;
}

/**
 * The refund to ask the provider for: the request checked against the capture or, when the capture no longer
 * allows it, the first attempt of this keyed request whose answer a crashed worker lost (its refund learnt
 * from the webhook); the provider's idempotency under the same key answers that refund again.
 */
export function refundPlan(state: LifecycleState, request: RefundInput): { amount: string } {
  try {
    return { amount: refundAmount(state, request) };
  } catch (refusal) {
    const lost = unclaimedRefund(state, request);
    if (!lost) throw refusal;
    return { amount: lost.amount.value };
  }
}

function unclaimedRefund(state: LifecycleState, request: RefundInput): RefundRecord | undefined {
  if (!request.idempotencyKey) return undefined;
  const wanted = request.amount === undefined ? undefined : minorUnitsOf(state, request.amount);
  return state.refunds?.find(
    (refund) =>
      refund.captureId === request.captureId &&
      refund.kind === 'refund' &&
      refund.idempotencyKey === undefined &&
      (wanted === undefined || minorUnitsOf(state, refund.amount.value) === wanted),
  );
}
