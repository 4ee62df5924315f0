import { formatMinorUnits } from '../../currency-decimals';
import type { CaptureRecord, LifecycleState, RefundEvent, RefundRecord } from './definitions';
import { minorUnitsOrZero } from './money';

/** What a capture has not yet had refunded (its refundedAmount follows from the ledger). */
export function refundableAmount(state: LifecycleState, capture: CaptureRecord): string {
  const left =
    minorUnitsOrZero(state, capture.amount.value) - minorUnitsOrZero(state, capture.refundedAmount);
  return formatMinorUnits(left > 0n ? left : 0n, state.currency);
}

/**
 * Records a refund or reversal once (the same refund id from the Update's answer and from the webhook is one
 * record, its status the latest); the money it moves is booked in the ledger (applyRefund).
 */
export function recordRefund(state: LifecycleState, refund: RefundRecord): void {
  const refunds = (state.refunds ??= []);
  const known = refunds.find((existing) => existing.id === refund.id);
  if (known)
    Object.assign(known, { ...refund, idempotencyKey: refund.idempotencyKey ?? known.idempotencyKey });
  else refunds.push(refund);
}

/** What a refund or dispute event moves: its adapter's translation, or by its type (a reversal withdraws funds). */
export function movementOfRefundEvent(event: RefundEvent): NonNullable<RefundEvent['movement']> {
  return event.movement ?? (event.eventType === 'capture.reversed' ? 'dispute-withdrawn' : 'refund');
}
