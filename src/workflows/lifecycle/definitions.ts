import type { Duration } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Authorization, PaymentCapture } from '../../payments/schemas';
import type { Amount } from './amounts';

// The lifecycle's public contract, shared by the workflow, the API and the typed client library.

export const lifecycleWorkflowType = 'authorizationLifecycle';

export function lifecycleWorkflowId(authorizationId: string): string {
  return `authorization-${authorizationId}`;
}

export type ExpiryPolicy = 'void' | 'expire';

export type LifecycleInput = {
  authorizationId: string;
  orderId?: string;
  /** When to reauthorize, measured from when the authorization was made: a Temporal duration, e.g. '3 days'. */
  reauthorizeAfter?: Duration;
  /** When the expiry policy runs, measured from when the authorization was made. Default: 1 hour before 29 days. */
  expiryPolicyAfter?: Duration;
  expiryPolicy?: ExpiryPolicy;
  /** How long an ended lifecycle stays open to record late provider events. Default: 3 days. */
  lateEventWindow?: Duration;
  /** A fresh id per start request: the `started` update tells the caller whether its request started the run. */
  startRequestId?: string;
  /** Set by continue-as-new: the state carried over from the previous run. */
  carriedState?: LifecycleState;
};

export type LifecycleStatus =
  'AUTHORIZED' | 'PARTIALLY_CAPTURED' | 'CAPTURE_PENDING' | 'CAPTURED' | 'VOIDED' | 'EXPIRED' | 'DENIED';

export const terminalStatuses: readonly LifecycleStatus[] = ['CAPTURED', 'VOIDED', 'EXPIRED', 'DENIED'];

export type CaptureRecord = {
  id: string;
  authorizationId: string;
  status: string;
  amount: Amount;
  finalCapture: boolean;
  requestId?: string;
  createTime?: string;
};

export type ReauthorizationRecord = {
  fromAuthorizationId: string;
  toAuthorizationId: string;
  amount: Amount;
  reason: 'timer' | 'request';
  at: string;
};

/** A verified provider event, as the webhook verification workflow signals it. */
export type PaymentEvent = {
  id: string;
  eventType: string;
  /** The authorization the event concerns: the resource for authorization events, the parent for captures. */
  authorizationId: string;
  captureId?: string;
  status?: string;
  amount?: Amount;
  finalCapture?: boolean;
  createTime?: string;
};

export type RecordedEvent = {
  id: string;
  eventType: string;
  authorizationId: string;
  receivedAt: string;
  applied: boolean;
  note?: string;
};

export type LifecycleState = {
  workflowId: string;
  authorizationId: string;
  currentAuthorizationId: string;
  orderId?: string;
  status: LifecycleStatus;
  currency: string;
  authorizedAmount: string;
  capturedAmount: string;
  remainingAmount: string;
  authorizationCreateTime: string;
  expirationTime?: string;
  reauthorizeAt?: string;
  expiryPolicyAt: string;
  expiryPolicy: ExpiryPolicy;
  /** The next thing the lifecycle's timer does; `close` ends the run after its late-event window. */
  nextTimer?: { kind: 'reauthorize' | 'expiryPolicy' | 'close'; at: string };
  captures: CaptureRecord[];
  reauthorizations: ReauthorizationRecord[];
  recentEvents: RecordedEvent[];
  /** Idempotency keys already answered, with their answers, so a retried request gets the first answer. */
  answeredKeys: Record<string, unknown>;
  /** Ids of provider events already delivered. */
  seenEventIds: string[];
  /** How many capture requests this lifecycle made; derives request ids when a caller gives no key. */
  captureSequence: number;
};

export type CaptureInput = {
  /** Decimal string in the authorization's currency; omitted means everything that remains. */
  amount?: string;
  finalCapture?: boolean;
  invoiceId?: string;
  noteToPayer?: string;
  /** The caller's Idempotency-Key; becomes the Update id and the capture's Service-Request-Id. */
  idempotencyKey?: string;
};

export type ReauthorizeInput = {
  /** Decimal string; omitted means what remains to capture. */
  amount?: string;
  idempotencyKey?: string;
};

export type VoidInput = {
  idempotencyKey?: string;
};

export const captureUpdate = defineUpdate<PaymentCapture, [CaptureInput]>('capture');
/** Answers the provider's voided authorization (null when it answered 204 with no body). */
export const voidUpdate = defineUpdate<Authorization | null, [VoidInput]>('void');
/** Answers the new authorization, which becomes current. */
export const reauthorizeUpdate = defineUpdate<Authorization, [ReauthorizeInput]>('reauthorize');
/** Answers once the lifecycle has read its authorization; sent with the start (update-with-start). */
export const startedUpdate = defineUpdate<{ state: LifecycleState; startRequestId?: string }>('started');
export const paymentEventSignal = defineSignal<[PaymentEvent]>('paymentEvent');
/** The lifecycle's state; null while it is still reading the authorization at start. */
export const stateQuery = defineQuery<LifecycleState | null>('state');

/** Failure types the lifecycle raises itself; the provider's own issues pass through unchanged. */
export const LifecycleFailure = {
  notManageable: 'AUTHORIZATION_NOT_MANAGEABLE',
  invalidRequest: 'INVALID_LIFECYCLE_REQUEST',
  stateForbids: 'LIFECYCLE_STATE_FORBIDS',
} as const;
