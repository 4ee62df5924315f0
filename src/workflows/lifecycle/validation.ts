import { ApplicationFailure } from '@temporalio/workflow';
import type { Money } from '../../providers/resources';
import { currencyDecimals } from '../../currency-decimals';
import { durationBounds, durationRule, isWithinBounds, type DurationField } from '../../duration-bounds';
import {
  LifecycleFailure,
  type CaptureInput,
  type IncrementInput,
  type LifecycleStart,
  type LifecycleState,
  type PendingAttempt,
  type ReauthorizeInput,
  type RefundInput,
} from './definitions';
import { figuresOf } from './ledger/figures';
import { refundableAmount } from './refunds';
import { disputeOfCharge } from './shared-charge';
import { amountOf, minorUnitsOf } from './money';
import { captureAllowance, isTerminal } from './bookings';

// Checks a request against the state before anything enters history; each refusal names what was wrong.

export function refuse(type: string, message: string): never {
  throw ApplicationFailure.create({ type, message, nonRetryable: true });
}

/** Refuses a start whose durations are out of bounds (a timer must be able to hold them), naming the field. */
export function assertDurationsWithinBounds(input: LifecycleStart): void {
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

/**
 * The provider's answer, refused when its amount is in another currency than the lifecycle's: booking it
 * would count, say, JPY 50 as USD 50.00.
 */
export function inLifecycleCurrency<Answer extends { id: string; amount?: Money }>(
  state: LifecycleState,
  answer: Answer,
  what: string,
): Answer {
  if (answer.amount && answer.amount.currency_code !== state.currency) {
    refuse(
      LifecycleFailure.answerCurrencyMismatch,
      `the provider answered ${what} ${answer.id} in ${answer.amount.currency_code}, not the lifecycle's ${state.currency}: not booked`,
    );
  }
  return answer;
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
  const { maxCaptures } = state;
  if (state.captures.length >= maxCaptures) {
    refuse(
      LifecycleFailure.stateForbids,
      `cannot capture: authorization ${state.authorizationId} has ${state.captures.length} captures, the most its provider takes (maxCaptures ${maxCaptures})`,
    );
  }
  const remaining = minorUnitsOf(state, state.remainingAmount) ?? 0n;
  if (remaining === 0n) refuse(LifecycleFailure.stateForbids, 'cannot capture: nothing remains to capture');
  if (request.amount === undefined) return state.remainingAmount;
  const wanted = positiveAmount(state, request.amount);
  const allowance = overcaptureAllowance(state);
  if (wanted > remaining + allowance) {
    const beyond = state.overcapture
      ? ` and the ${amountOf(state, allowance).value} its provider lets a capture exceed the hold by`
      : '';
    refuse(
      LifecycleFailure.stateForbids,
      `amount: ${request.amount} ${state.currency} is more than the ${state.remainingAmount} that remains${beyond}`,
    );
  }
  if (wanted > remaining && request.finalCapture === false) {
    refuse(
      LifecycleFailure.invalidRequest,
      `finalCapture: a capture beyond the ${state.remainingAmount} that remains is the last; leave finalCapture out or set it true`,
    );
  }
  return amountOf(state, wanted).value;
}

/**
 * How much a capture may exceed what remains: in a lifecycle started with overcapture, the provider's allowance
 * (overCapturePercent of the current hold; 0 where the provider gives none); otherwise nothing.
 */
function overcaptureAllowance(state: LifecycleState): bigint {
  return state.overcapture ? captureAllowance(state, figuresOf(state.ledger.movements).authorized) : 0n;
}

/**
 * The amount to hold again: what remains of the current hold, or less. A reauthorization never asks the payer
 * for more than that: a new hold beyond it is money the payer never authorized.
 */
export function reauthorizeAmount(state: LifecycleState, request: ReauthorizeInput): string {
  assertOpen(state, 'reauthorize');
  const remaining = minorUnitsOf(state, state.remainingAmount) ?? 0n;
  if (remaining === 0n) refuse(LifecycleFailure.stateForbids, 'cannot reauthorize: nothing remains held');
  if (request.amount === undefined) return state.remainingAmount;
  const wanted = positiveAmount(state, request.amount);
  if (wanted > remaining) {
    refuse(
      LifecycleFailure.stateForbids,
      `amount: ${request.amount} ${state.currency} is more than the ${state.remainingAmount} that remains of the current hold`,
    );
  }
  return amountOf(state, wanted).value;
}

/**
 * The total an incremental authorization raises the current hold to: what it holds and `amount` more. Only a
 * hold the payer's card lets raise in place (Stripe's incremental authorization), and only before anything of
 * it was captured, as Stripe requires.
 */
export function incrementTotal(state: LifecycleState, request: IncrementInput): string {
  assertOpen(state, 'increment the authorization');
  const hold = state.currentAuthorizationId;
  if (!state.incrementable) {
    refuse(
      LifecycleFailure.stateForbids,
      `cannot increment: authorization ${hold} cannot be raised in place (${state.provider} does not offer incremental authorization on it); reauthorize or authorize anew`,
    );
  }
  const figures = figuresOf(state.ledger.movements);
  if (figures.captures.some((capture) => capture.hold === hold && capture.captured > 0n)) {
    refuse(LifecycleFailure.stateForbids, `cannot increment: authorization ${hold} was captured`);
  }
  const increase = positiveAmount(state, request.amount);
  return amountOf(state, figures.authorized + increase).value;
}

/**
 * A capture sent and not answered yet (its answer lost): while one is, what remains at the provider is unknown.
 */
export function unansweredCapture(state: LifecycleState): PendingAttempt | undefined {
  return state.pendingAttempts.find((attempt) => attempt.operation === 'capture');
}

/**
 * What completing the order releases: all that remains of the current hold, once something was captured and
 * every capture sent has its answer. A hold with nothing captured is voided instead; a Stripe multicapture
 * PaymentIntent partly captured cannot be canceled, so its rest is released only by its final capture.
 */
export function completeAmount(state: LifecycleState): string {
  assertOpen(state, 'complete the order');
  if ((minorUnitsOf(state, state.capturedAmount) ?? 0n) === 0n) {
    refuse(
      LifecycleFailure.stateForbids,
      'cannot complete the order: nothing was captured; void the authorization to release the whole hold',
    );
  }
  const unanswered = unansweredCapture(state);
  if (unanswered) {
    refuse(
      LifecycleFailure.stateForbids,
      `cannot complete the order: the capture under key ${unanswered.idempotencyKey} has no answer yet; retry it first`,
    );
  }
  if (state.sharedCaptureIds) {
    refuse(
      LifecycleFailure.stateForbids,
      `cannot complete the order: Stripe releases the rest of a partly captured PaymentIntent only with its final capture (capture with finalCapture: true) or at the hold's end${state.expirationTime ? ` (${state.expirationTime})` : ''}`,
    );
  }
  return state.remainingAmount;
}

/** The amount to refund, in the lifecycle's currency, checked against what the capture has not had refunded. */
export function refundAmount(state: LifecycleState, request: RefundInput): string {
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
  const dispute = disputeOfCharge(state, capture.id);
  if (dispute) {
    refuse(
      LifecycleFailure.stateForbids,
      `cannot refund: capture ${capture.id} shares charge ${dispute.chargeId}, whose dispute ${dispute.disputeId} withdrew funds that are not reinstated`,
    );
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
