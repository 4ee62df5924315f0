import type { Money } from './money';

// The books' records, apart from the ledgers that keep them, so both ledgers share them without a circle.

export type PaymentIntent = 'AUTHORIZE' | 'CAPTURE';
export type AuthorizationStatus =
  'CREATED' | 'CAPTURED' | 'DENIED' | 'PARTIALLY_CAPTURED' | 'VOIDED' | 'PENDING' | 'EXPIRED';
export type CaptureStatus =
  'COMPLETED' | 'DECLINED' | 'PARTIALLY_REFUNDED' | 'PENDING' | 'REFUNDED' | 'FAILED';
/** How the payer's bank answers captures of an authorization; set when the sandbox creates it. */
export type CaptureOutcome = 'COMPLETED' | 'PENDING' | 'DECLINED';

export interface AuthorizationRecord {
  id: string;
  intent: PaymentIntent;
  status: AuthorizationStatus;
  amount: Money;
  /** Sum of the captures that took money (COMPLETED or PENDING). */
  capturedMinor: bigint;
  captureOutcome: CaptureOutcome;
  invoiceId?: string;
  customId?: string;
  orderId?: string;
  createTime: Date;
  updateTime: Date;
  expirationTime: Date;
  captureIds: string[];
  /** Set on a reauthorization: the authorization it renews. */
  parentId?: string;
  /** Set on an original once reauthorized: the authorization that replaces it for captures. */
  reauthorizationId?: string;
  /** Set once EXPIRED: the status it had until then, which PayPal keeps showing (its enum has no EXPIRED). */
  statusBeforeExpiry?: AuthorizationStatus;
}

export interface CaptureRecord {
  id: string;
  authorizationId: string;
  status: CaptureStatus;
  amount: Money;
  finalCapture: boolean;
  invoiceId?: string;
  noteToPayer?: string;
  softDescriptor?: string;
  createTime: Date;
  updateTime: Date;
}

export type RefundStatus = 'COMPLETED' | 'FAILED' | 'CANCELLED';

export interface RefundRecord {
  id: string;
  captureId: string;
  /** A refund the payee asked for, or a reversal (chargeback) the payer's bank made. */
  kind: 'refund' | 'reversal';
  /** A refund completes at once; the control route may then make it FAILED or CANCELLED (money back). */
  status: RefundStatus;
  amount: Money;
  /** What the capture had had refunded when this one was made, this one included. */
  totalRefunded: Money;
  invoiceId?: string;
  customId?: string;
  noteToPayer?: string;
  createTime: Date;
  updateTime: Date;
}

export type LedgerEvent =
  | {
      type: 'PAYMENT.AUTHORIZATION.CREATED' | 'PAYMENT.AUTHORIZATION.VOIDED';
      authorization: AuthorizationRecord;
    }
  | {
      type: 'PAYMENT.CAPTURE.COMPLETED' | 'PAYMENT.CAPTURE.PENDING' | 'PAYMENT.CAPTURE.DENIED';
      capture: CaptureRecord;
    }
  | { type: 'PAYMENT.CAPTURE.REFUNDED' | 'PAYMENT.CAPTURE.REVERSED'; refund: RefundRecord };
