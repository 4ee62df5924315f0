import type { Duration } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PaymentEvent, PaymentEventKind } from '../../providers/events';
import type { ProviderName } from '../../provider-names';
import type { ExpiryPolicy } from '../../expiry-policies';
import type { CaptureRequest, RefundRequest } from '../../providers/port';
import type { Authorization, CaptureStatus, Money, PaymentCapture, Refund } from '../../providers/resources';
import type { Discrepancy, Ledger, Movement } from '../../providers/movements';

export type { PaymentEvent };

/** A refund or reversal event: its resource is the refund, of the capture it names. */
export type RefundEvent = PaymentEvent & { refundId: string; captureId: string };

// The lifecycle's public contract, shared by the workflow, the API and the typed client library.

export const lifecycleWorkflowType = 'authorizationLifecycle';

export function lifecycleWorkflowId(authorizationId: string): string {
  return `authorization-${authorizationId}`;
}

export type { ExpiryPolicy };

export type LifecycleInput = {
  authorizationId: string;
  /** The authorization's provider: its activities run under the provider's names (`paypal.captureAuthorization`). */
  provider: ProviderName;
  orderId?: string;
  /** When to reauthorize, measured from when the authorization was made: a Temporal duration, e.g. '3 days'. */
  reauthorizeAfter?: Duration;
  /** When the expiry policy runs, measured from when the authorization was made. Default: 1 hour before 29 days. */
  expiryPolicyAfter?: Duration;
  expiryPolicy?: ExpiryPolicy;
  /** How long an ended lifecycle stays open to record late provider events. Default: 3 days. */
  lateEventWindow?: Duration;
  /** A fresh id per start request: the `started` query tells the caller whether its request started the run. */
  startRequestId?: string;
  /** How long an answer stays remembered under its Idempotency-Key. Default and floor: 45 days (PayPal honours a request id as long). */
  idempotencyKeyRetention?: Duration;
  /** How long a timer's provider call (reauthorize, void before expiry) may keep retrying. Default: 1 hour. */
  timerCallTimeout?: Duration;
  /**
   * How long a capture, refund, void or reauthorization the lifecycle made waits for the provider's event that
   * confirms it; then the lifecycle reads its provider (reconciles, reason 'event-overdue'). Default: 1 hour.
   */
  eventGracePeriod?: Duration;
  /**
   * Lets a capture exceed what remains of the hold by the provider's documented allowance (PayPal: captures up to
   * 115 % of the authorization); such a capture is the last. Without it, every capture is capped at what remains.
   */
  overcapture?: boolean;
  /**
   * Asks for an extended authorization (up to 30 days) on each new hold a reauthorization takes, where the
   * provider offers it (Stripe, on cards that allow it); refused at start where it does not (PayPal).
   */
  extendedAuthorization?: boolean;
  /** Set by continue-as-new: the state carried over from the previous run. */
  carriedState?: LifecycleState;
  /** The caller that started the lifecycle (an API caller id, a Nexus caller namespace); see LifecycleClient. */
  owner?: string;
};

/** What a caller asks to start: without a provider, the authorization id decides (providerOfStart). */
export type LifecycleStart = Omit<LifecycleInput, 'provider'> & { provider?: ProviderName };

/** How a run was ended from outside the lifecycle, and when. */
export type RunEnded = { how: 'TERMINATED' | 'TIMED_OUT'; at?: string };

/** After CAPTURED, refunds and reversals of its captures move it on to PARTIALLY_REFUNDED, REFUNDED or REVERSED. */
export type LifecycleStatus =
  | 'AUTHORIZED'
  | 'PARTIALLY_CAPTURED'
  | 'CAPTURE_PENDING'
  | 'CAPTURED'
  | 'VOIDED'
  | 'EXPIRED'
  | 'DENIED'
  | 'PARTIALLY_REFUNDED'
  | 'REFUNDED'
  | 'REVERSED';

export const terminalStatuses: readonly LifecycleStatus[] = [
  'CAPTURED',
  'VOIDED',
  'EXPIRED',
  'DENIED',
  'PARTIALLY_REFUNDED',
  'REFUNDED',
  'REVERSED',
];

export type CaptureRecord = {
  id: string;
  authorizationId: string;
  status: CaptureRecordStatus;
  amount: Money;
  finalCapture: boolean;
  /** The key the capture was sent to the provider under; absent for one learnt from a webhook. */
  idempotencyKey?: string;
  createTime?: string;
  /** What its refunds and reversals give back, from the ledger; absent while none has been booked. */
  refundedAmount?: string;
};

/** A refund of one of the lifecycle's captures, or a reversal (chargeback) of it by the payer's bank. */
export type RefundRecord = {
  id: string;
  captureId: string;
  kind: 'refund' | 'reversal';
  status: string;
  amount: Money;
  /** The key the refund was sent to the provider under; absent for one learnt from a webhook. */
  idempotencyKey?: string;
  createTime?: string;
};

/** A movement the lifecycle made, waiting for the provider's event that confirms it (see awaited-events.ts). */
export type AwaitedEvent = {
  kind: 'capture' | 'refund';
  /** The provider's id the event names: the capture (a shared charge's id) or the refund. */
  reference: string;
  madeAt: string;
  /** When, without the event, the lifecycle reads its provider: `madeAt` plus the lifecycle's eventGracePeriod. */
  readAfter: string;
};

export type ReauthorizationRecord = {
  fromAuthorizationId: string;
  toAuthorizationId: string;
  amount: Money;
  reason: 'timer' | 'request';
  at: string;
};

export type RecordedEvent = {
  id: string;
  eventType: PaymentEventKind;
  authorizationId?: string;
  captureId?: string;
  receivedAt: string;
  applied: boolean;
  note?: string;
};

/** Why each hold timer runs when it does, in words: shown in the next timer and in each run of the ledger. */
export type DeadlineReasons = { reauthorize?: string; expiryPolicy: string };

export type LifecycleState = {
  workflowId: string;
  authorizationId: string;
  provider: ProviderName;
  /** Set when the provider reauthorizes by a new authorization (Stripe): a void then voids the current one. */
  reauthorization?: 'new-authorization';
  /** Set when the provider's captures of one authorization share an id: each capture gets one of its own. */
  sharedCaptureIds?: true;
  currentAuthorizationId: string;
  orderId?: string;
  /** The caller that started it: only it (and an admin) sees it. Absent when the start named no caller. */
  owner?: string;
  status: LifecycleStatus;
  currency: string;
  authorizedAmount: string;
  capturedAmount: string;
  remainingAmount: string;
  authorizationCreateTime: string;
  expirationTime?: string;
  reauthorizeAt?: string;
  expiryPolicyAt: string;
  /** Why the reauthorization and the expiry policy run when they do (the hold's end, the provider's honor period, the start's durations). */
  deadlineReasons: DeadlineReasons;
  expiryPolicy: ExpiryPolicy;
  /**
   * The next thing the lifecycle's timer does; `reconcile` reads the provider for a movement whose event is
   * overdue (awaitedEvents); `close` ends the run after its late-event window.
   */
  nextTimer?: { kind: 'reauthorize' | 'expiryPolicy' | 'reconcile' | 'close'; at: string; why?: string };
  /** When the late-event window ends and the run closes; set as the window begins. */
  closesAt?: string;
  /**
   * Captures and refunds the lifecycle made that the provider answered PENDING and no event has settled yet:
   * past its `readAfter` the lifecycle reads its provider. Absent while none waits.
   */
  awaitedEvents?: AwaitedEvent[];
  captures: CaptureRecord[];
  /** Absent until the lifecycle records its first refund or reversal. */
  refunds?: RefundRecord[];
  /** The sum of every capture's refundedAmount; absent while nothing was refunded. */
  refundedAmount?: string;
  /**
   * The lifecycle's money: every movement booked once (see ledger/), and those refused as discrepancies.
   * capturedAmount, remainingAmount, refundedAmount, the captures' statuses and the status follow from it.
   */
  ledger: Ledger;
  reauthorizations: ReauthorizationRecord[];
  recentEvents: RecordedEvent[];
  /** Answers remembered under their Idempotency-Key for the retention, so a retry gets the first answer. */
  keyedAnswers: KeyedAnswer[];
  /** Ids of provider events already delivered. */
  seenEventIds: string[];
  /** The last reconciliation with the provider: when, why, and what it booked and recorded. */
  lastReconciliation?: {
    at: string;
    reason: ReconcileReason;
    booked: number;
    recorded: number;
    /** Discrepancies of earlier reads it resolved; absent when none. */
    resolved?: number;
  };
  /** The last timer reauthorization that failed for good; cleared by the next one that succeeds. */
  reauthorizationFailure?: { at: string; reason: string };
  /**
   * Set by a read (never by the workflow) of a run ended from outside: terminated through Temporal, or timed
   * out. Such a lifecycle keeps no timer and takes no command; what it holds at the provider stays as its
   * status says.
   */
  runEnded?: RunEnded;
  /** How many captures the provider takes on one authorization. */
  maxCaptures: number;
  /** Set when maxCaptures is the provider's own limit: the capture that reaches it is sent final. */
  capturesEndAtMax?: true;
  /** What the provider lets captures take beyond a hold, in percent of it (PayPal's 15): the ledger allows it. */
  overCapturePercent?: number;
  /** Where the provider caps overCapturePercent in the lifecycle's currency: the most it adds (PayPal's 75.00 USD). */
  overCaptureAtMost?: string;
  /**
   * The most the current hold's captures may take in all, where its provider says (Stripe's overcapture
   * maximum): then the allowance beyond the hold is this less the hold, not overCapturePercent of it.
   */
  captureMaximum?: string;
  /** Set when the start allowed overcapture: a capture may take what remains plus the provider's allowance. */
  overcapture?: true;
  /** Set when the start asked for extended authorizations: each new hold of a reauthorization asks for one. */
  extendedAuthorization?: true;
  /** Set while the current hold can be raised in place (Stripe's incremental authorization on the payer's card). */
  incrementable?: true;
  /**
   * How long the provider keeps an idempotency key (Stripe 24 hours, PayPal 45 days): a pending attempt
   * retried later is looked for at the provider before it is sent again.
   */
  keyRetentionMs: number;
  /** Keyed captures and refunds sent to the provider whose answer has not come. */
  pendingAttempts: PendingAttempt[];
  /**
   * Refund and reversal events that came before their capture's event (deliveries are not ordered): applied
   * when the capture is recorded. Absent while none waits.
   */
  refundsAwaitingCapture?: RefundEvent[];
};

/**
 * A keyed capture or refund the lifecycle sent to the provider and has no answer for yet (lost with a
 * dropped connection or a crashed worker). Only a retry under its key, with the same request, may claim the
 * capture or refund a webhook reports for it, and the retry sends the same call again: under the same
 * provider key, the provider answers it with its first answer. Once the provider may have forgotten that key
 * (keyRetentionMs after `sentAt`), the retry first looks for what the call did and sends it again, under a
 * fresh key, only if the provider holds nothing of it.
 */
export type PendingAttempt = PendingCapture | PendingRefund;

type KeyedAttempt = {
  /** The caller's Idempotency-Key. */
  idempotencyKey: string;
  request: RequestFingerprint;
  /** When it was first sent under its provider key (workflow time). */
  sentAt: string;
  /** How many times it was sent again under a fresh provider key, its key's retention having passed. */
  resends?: number;
};

export type PendingCapture = KeyedAttempt & { operation: 'capture'; sent: CaptureRequest };

export type PendingRefund = KeyedAttempt & {
  operation: 'refund';
  sent: RefundRequest & { amount: Money };
  /** The lifecycle's capture it refunds (`sent.captureId` is the provider's). */
  captureId: string;
};

export type LifecycleOperation = 'capture' | 'void' | 'complete' | 'reauthorize' | 'increment' | 'refund';

/** What a keyed request asked for, normalized (amounts with the currency's decimals); compared on a retry. */
export type RequestFingerprint = Record<string, string | boolean>;

export type KeyedAnswer = {
  idempotencyKey: string;
  operation: LifecycleOperation;
  request: RequestFingerprint;
  answer: unknown;
  /** End of the retention: a retry after it is a new request. */
  keptUntil: string;
};

export type CaptureInput = {
  /** Decimal string with at most the currency's decimals; omitted means everything that remains. */
  amount?: string;
  finalCapture?: boolean;
  invoiceId?: string;
  noteToPayer?: string;
  /**
   * The caller's Idempotency-Key: names the remembered answer; the capture's key to the provider is derived
   * from it and the authorization id.
   */
  idempotencyKey?: string;
};

export type ReauthorizeInput = {
  /** Decimal string; omitted means what remains to capture. */
  amount?: string;
  /** The caller's Idempotency-Key; the key to the provider is derived from it and the authorization id. */
  idempotencyKey?: string;
};

export type VoidInput = {
  /** The caller's Idempotency-Key: names the remembered answer (a void has one key to the provider). */
  idempotencyKey?: string;
};

/** Raises the current hold by `amount` (the increase), without a new authorization. */
export type IncrementInput = {
  amount: string;
  /** The caller's Idempotency-Key: required, the increment moves money. */
  idempotencyKey?: string;
};

/** Completes the order: nothing more is captured, and what remains held is released (a void at the provider). */
export type CompleteInput = VoidInput;

/** What completing the order released, and the lifecycle's status after it. */
export type OrderCompletion = { authorizationId: string; released: Money; status: LifecycleStatus };

export type RefundInput = {
  /** One of the lifecycle's captures. */
  captureId: string;
  /** Decimal string in the capture's currency; omitted means everything not yet refunded. */
  amount?: string;
  invoiceId?: string;
  noteToPayer?: string;
  /**
   * The caller's Idempotency-Key: names the remembered answer; the refund's key to the provider is derived
   * from it and the capture id.
   */
  idempotencyKey?: string;
};

/** The summary a lifecycle starts with, shown in the Web UI's list and header. */
export function lifecycleSummary(authorizationId: string, orderId?: string): string {
  return orderId ? `Authorization ${authorizationId} · order ${orderId}` : `Authorization ${authorizationId}`;
}

export const captureUpdate = defineUpdate<PaymentCapture, [CaptureInput]>('capture');
/** Answers the provider's voided authorization (null when it answered 204 with no body). */
export const voidUpdate = defineUpdate<Authorization | null, [VoidInput]>('void');
/** Answers the authorization with its raised amount. */
export const incrementUpdate = defineUpdate<Authorization, [IncrementInput]>('increment');
/** Answers what the completion released; the lifecycle's captures stand and it waits only for late events. */
export const completeUpdate = defineUpdate<OrderCompletion, [CompleteInput]>('complete');
/** Answers the new authorization, which becomes current. */
export const reauthorizeUpdate = defineUpdate<Authorization, [ReauthorizeInput]>('reauthorize');
/** Answers the provider's refund; a lifecycle that has closed is reopened for it (see LifecycleClient.refund). */
export const refundUpdate = defineUpdate<Refund, [RefundInput]>('refund');
/**
 * Why a lifecycle reconciles with its provider: an operator's request, a movement it made whose event has not
 * come within its eventGracePeriod, or its run is about to close.
 */
export type ReconcileReason = 'request' | 'event-overdue' | 'close';

/** What one reconciliation did: the movements it booked and the discrepancies it recorded, and the ledger's. */
export type ReconcileSummary = {
  at: string;
  reason: ReconcileReason;
  /** Booked by this reconciliation, each with source 'read'. */
  booked: Movement[];
  /** Recorded by this reconciliation: what the ledger holds and the provider does not. */
  recorded: Discrepancy[];
  /** Resolved by this reconciliation: discrepancies an earlier read recorded whose movement the provider now holds. */
  resolved: Discrepancy[];
  /** Every discrepancy the ledger has recorded (at most its last 100). */
  discrepancies: Discrepancy[];
  /** What the read could not tell. */
  unreadable: string[];
};

/**
 * Reads the provider and books what it holds (source 'read'); what the ledger holds and the provider does not
 * is recorded as a discrepancy. An operator's request (the API's admin route); the run also reconciles before
 * it closes.
 */
export const reconcileUpdate = defineUpdate<ReconcileSummary>('reconcile');
export const paymentEventSignal = defineSignal<[PaymentEvent]>('paymentEvent');
/** The lifecycle's state; null while it is still reading the authorization at start. */
export const stateQuery = defineQuery<LifecycleState | null>('state');
/** The lifecycle once it has read its authorization, and the start that started its run (to tell a join). */
export type StartedState = { state: LifecycleState; startRequestId?: string };
/** The started lifecycle; null while it is still reading the authorization, and after a start that failed. */
export const startedQuery = defineQuery<StartedState | null>('started');

/** A retry's question to a lifecycle that has closed: its request under its key, at the caller's time. */
export type KeyedAnswerQuestion = {
  operation: LifecycleOperation;
  idempotencyKey: string;
  request: CaptureInput | VoidInput | ReauthorizeInput | RefundInput;
  /** The caller's clock (milliseconds since the epoch): retention is judged at it. */
  at: number;
};

/** The answer remembered under the key, why this request is not the one it answered, or null for none. */
export type KeyedAnswerLookup = { answer: unknown } | { conflict: string } | null;

/** Answers a request the lifecycle answered before, under its key (see LifecycleClient for closed ones). */
export const keyedAnswerQuery = defineQuery<KeyedAnswerLookup, [KeyedAnswerQuestion]>('keyedAnswer');

/** Failure types the lifecycle raises itself; the provider's own issues pass through unchanged. */
export const LifecycleFailure = {
  notManageable: 'AUTHORIZATION_NOT_MANAGEABLE',
  invalidRequest: 'INVALID_LIFECYCLE_REQUEST',
  stateForbids: 'LIFECYCLE_STATE_FORBIDS',
  keyReused: 'IDEMPOTENCY_KEY_REUSED',
  /** The provider answered an amount in another currency than the lifecycle's: nothing of it is booked. */
  answerCurrencyMismatch: 'PROVIDER_ANSWER_CURRENCY_MISMATCH',
  /** The run is about to continue as new and takes no new request: the client sends it again, to the next run. */
  runContinuing: 'LIFECYCLE_RUN_CONTINUING',
} as const;

/** A capture's status as the lifecycle records it: the provider's, or REVERSED after a reversal event. */
export type CaptureRecordStatus = CaptureStatus | 'REVERSED';

/** A capture event's kind → the capture status it reports. */
export const captureStatusByEvent: Readonly<Partial<Record<PaymentEventKind, CaptureRecordStatus>>> = {
  'capture.completed': 'COMPLETED',
  'capture.pending': 'PENDING',
  'capture.declined': 'DECLINED',
  'capture.refunded': 'REFUNDED',
  'capture.reversed': 'REVERSED',
};
