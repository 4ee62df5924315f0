import { formatMinorUnits } from '../../currency-decimals';
import type { CaptureRecord, LifecycleState, RefundRecord } from './definitions';
import { minorUnitsOrZero } from './money';

// Refund arithmetic, in minor units of the lifecycle's currency: the one place refunds add and compare money.

function decimal(state: LifecycleState, minor: bigint): string {
  return formatMinorUnits(minor, state.currency);
}

/** What a capture has not yet had refunded. */
export function refundableAmount(state: LifecycleState, capture: CaptureRecord): string {
  const left =
    minorUnitsOrZero(state, capture.amount.value) - minorUnitsOrZero(state, capture.refundedAmount);
  return decimal(state, left > 0n ? left : 0n);
}

/** Whether some of the capture's money was given back. */
export function hasRefunds(state: LifecycleState, capture: CaptureRecord): boolean {
  return minorUnitsOrZero(state, capture.refundedAmount) > 0n;
}

/** Refunds that take money back: every one but a failed or cancelled one. */
function givesBack(refund: RefundRecord): boolean {
  return refund.status !== 'FAILED' && refund.status !== 'CANCELLED';
}

/**
 * Records a refund or reversal once (the same refund id from the Update's answer and from the webhook counts
 * once) and moves its capture on: PARTIALLY_REFUNDED, REFUNDED once nothing is left, REVERSED by a reversal.
 */
export function recordRefund(state: LifecycleState, refund: RefundRecord): void {
  const refunds = (state.refunds ??= []);
  const known = refunds.find((existing) => existing.id === refund.id);
  if (known)
    Object.assign(known, { ...refund, idempotencyKey: refund.idempotencyKey ?? known.idempotencyKey });
  else refunds.push(refund);

  const capture = state.captures.find((existing) => existing.id === refund.captureId);
  if (!capture) return;
  const ofCapture = refunds.filter((each) => each.captureId === capture.id && givesBack(each));
  const refunded = ofCapture.reduce((sum, each) => sum + minorUnitsOrZero(state, each.amount.value), 0n);
  capture.refundedAmount = decimal(state, refunded);
  if (ofCapture.some((each) => each.kind === 'reversal')) capture.status = 'REVERSED';
  else if (refunded >= minorUnitsOrZero(state, capture.amount.value)) capture.status = 'REFUNDED';
  else if (refunded > 0n) capture.status = 'PARTIALLY_REFUNDED';
  const total = state.captures.reduce((sum, each) => sum + minorUnitsOrZero(state, each.refundedAmount), 0n);
  state.refundedAmount = decimal(state, total);
}
