import { refusal, resourceNotFound } from './errors';
import { resourceId } from './ids';
import type { AuthorizationLedger } from './ledger';
import type { Money } from './money';
import type { CaptureRecord, LedgerEvent, RefundRecord, RefundStatus } from './records';

export interface RefundInstruction {
  /** None means everything not yet refunded. */
  amount?: Money;
  invoiceId?: string;
  customId?: string;
  noteToPayer?: string;
}

/**
 * Refunds and reversals of captures, with PayPal's rules: only a completed capture, never more than it has
 * left unrefunded, in its currency; nothing after a chargeback. Each one moves the capture's status and
 * publishes its event. Synchronous, like the ledger, so no two refunds interleave.
 */
export class RefundLedger {
  private readonly refunds = new Map<string, RefundRecord>();
  /** Each capture's refunds and reversal, oldest first; the latest holds what it has had refunded to date. */
  private readonly byCapture = new Map<string, RefundRecord[]>();

  constructor(
    private readonly ledger: AuthorizationLedger,
    private readonly options: { now: () => Date; onEvent: (event: LedgerEvent) => void },
  ) {}

  refund(id: string): RefundRecord {
    const record = this.refunds.get(id);
    if (!record) throw resourceNotFound(`Specified resource ID does not exist: refund ${id}.`);
    return record;
  }

  refundsOf(captureId: string): RefundRecord[] {
    this.ledger.capture(captureId);
    return [...(this.byCapture.get(captureId) ?? [])];
  }

  refundCapture(captureId: string, instruction: RefundInstruction): RefundRecord {
    if (this.refunds.has(captureId)) {
      throw resourceNotFound(`${captureId} is a refund; only a capture can be refunded.`);
    }
    const capture = this.ledger.capture(captureId);
    if (this.reversed(captureId)) throw refusal('REFUND_NOT_PERMITTED_DUE_TO_CHARGEBACK');
    if (capture.status === 'PENDING') throw refusal('PENDING_CAPTURE');
    if (capture.status === 'REFUNDED') throw refusal('CAPTURE_FULLY_REFUNDED');
    if (capture.status !== 'COMPLETED' && capture.status !== 'PARTIALLY_REFUNDED') {
      throw refusal('REFUND_NOT_ALLOWED');
    }
    if (instruction.amount && instruction.amount.currency !== capture.amount.currency) {
      throw refusal('REFUND_CAPTURE_CURRENCY_MISMATCH');
    }
    const left = capture.amount.minor - this.refundedOf(captureId);
    const amount = instruction.amount?.minor ?? left;
    if (amount > left) throw refusal('REFUND_AMOUNT_EXCEEDED');
    return this.record(capture, 'refund', amount, instruction);
  }

  /** Control: the payer's bank reverses what is left of a completed capture (a chargeback). */
  reverseCapture(captureId: string): RefundRecord {
    const capture = this.ledger.capture(captureId);
    if (capture.status !== 'COMPLETED' && capture.status !== 'PARTIALLY_REFUNDED') {
      throw refusal('REFUND_NOT_ALLOWED');
    }
    if (this.reversed(captureId)) throw refusal('REFUND_NOT_PERMITTED_DUE_TO_CHARGEBACK');
    return this.record(capture, 'reversal', capture.amount.minor - this.refundedOf(captureId), {});
  }

  /**
   * Control: a completed refund fails (the payer's account closed) or is canceled. Its amount is the
   * merchant's again: the capture counts it no longer, takes back the status it would have without it, and can
   * be refunded again. Published as PAYMENT.CAPTURE.REFUNDED with the refund in its new status.
   */
  returnRefund(refundId: string, status: Exclude<RefundStatus, 'COMPLETED'>): RefundRecord {
    const refund = this.refund(refundId);
    if (refund.kind !== 'refund' || refund.status !== 'COMPLETED') throw refusal('REFUND_NOT_COMPLETED');
    const capture = this.ledger.capture(refund.captureId);
    const now = this.options.now();
    refund.status = status;
    refund.updateTime = now;
    const refunded = this.refundedOf(capture.id, 'refund');
    if (refunded === 0n) capture.status = 'COMPLETED';
    else capture.status = refunded === capture.amount.minor ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
    capture.updateTime = now;
    this.options.onEvent({ type: 'PAYMENT.CAPTURE.REFUNDED', refund });
    return refund;
  }

  /** What the capture has given back and not had returned: its completed refunds and reversal (or one kind). */
  private refundedOf(captureId: string, kind?: RefundRecord['kind']): bigint {
    return (this.byCapture.get(captureId) ?? [])
      .filter((refund) => refund.status === 'COMPLETED' && (kind === undefined || refund.kind === kind))
      .reduce((sum, refund) => sum + refund.amount.minor, 0n);
  }

  private reversed(captureId: string): boolean {
    return this.byCapture.get(captureId)?.some((refund) => refund.kind === 'reversal') ?? false;
  }

  private record(
    capture: CaptureRecord,
    kind: RefundRecord['kind'],
    minor: bigint,
    instruction: RefundInstruction,
  ): RefundRecord {
    const captureId = capture.id;
    const total = this.refundedOf(captureId) + minor;
    const now = this.options.now();
    const refund: RefundRecord = {
      id: resourceId(),
      captureId,
      kind,
      status: 'COMPLETED',
      amount: { currency: capture.amount.currency, minor },
      totalRefunded: { currency: capture.amount.currency, minor: total },
      invoiceId: instruction.invoiceId,
      customId: instruction.customId,
      noteToPayer: instruction.noteToPayer,
      createTime: now,
      updateTime: now,
    };
    this.refunds.set(refund.id, refund);
    this.byCapture.set(captureId, [...(this.byCapture.get(captureId) ?? []), refund]);
    if (kind === 'refund') {
      const refunded = this.refundedOf(captureId, 'refund');
      capture.status = refunded === capture.amount.minor ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
      capture.updateTime = now;
    }
    const type = kind === 'refund' ? 'PAYMENT.CAPTURE.REFUNDED' : 'PAYMENT.CAPTURE.REVERSED';
    this.options.onEvent({ type, refund });
    return refund;
  }
}
