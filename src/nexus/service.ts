import * as nexus from 'nexus-rpc';
import type { z } from 'zod';
import type { Authorization, PaymentCapture } from '../providers/resources';
import type { OrderCompletion } from '../workflows/lifecycle/definitions';
import type { OutcomeFailure, PaymentState } from '../workflows/payment-outcome/definitions';
import type {
  captureInput,
  incrementInput,
  lifecycleRefInput,
  reauthorizeInput,
  startLifecycleInput,
  voidInput,
} from './inputs';

// The payments Nexus service: the contract order workflows in other namespaces call. At run time it needs only
// `nexus-rpc`; everything else here is types, so a caller's workflow bundle imports nothing of ours.

export type { Authorization, OrderCompletion, PaymentCapture, PaymentState };

/** Durations are Temporal durations, e.g. '3 days'; omitted ones are the service's defaults, as in the API. */
export type StartLifecycleInput = z.input<typeof startLifecycleInput>;
export type StartedLifecycle = { workflowId: string; runId: string; state: PaymentState; created: boolean };
/**
 * `idempotencyKey` makes a request idempotent across the caller's own retries (e.g. a new workflow run); without
 * one, the Nexus request id is the key, which already covers Temporal's retries of one operation.
 */
export type CaptureOperationInput = z.input<typeof captureInput>;
export type ReauthorizeOperationInput = z.input<typeof reauthorizeInput>;
export type VoidOperationInput = z.input<typeof voidInput>;
export type IncrementOperationInput = z.input<typeof incrementInput>;
export type LifecycleRef = z.input<typeof lifecycleRefInput>;

export const paymentsService = nexus.service('payments', {
  /** Starts (or joins) the lifecycle; answers once it has read the authorization. */
  startLifecycle: nexus.operation<StartLifecycleInput, StartedLifecycle>(),
  capture: nexus.operation<CaptureOperationInput, PaymentCapture>(),
  /** The provider's voided authorization; null when it answered without a body. */
  void: nexus.operation<VoidOperationInput, Authorization | null>(),
  /** Completes the order: nothing more is captured, what remains held is released; answers what it released. */
  complete: nexus.operation<VoidOperationInput, OrderCompletion>(),
  /** Raises the hold by `amount` in place (Stripe's incremental authorization); answers it with its new amount. */
  increment: nexus.operation<IncrementOperationInput, Authorization>(),
  reauthorize: nexus.operation<ReauthorizeOperationInput, Authorization>(),
  /** The lifecycle's state; null when there is none for the authorization. */
  state: nexus.operation<LifecycleRef, PaymentState | null>(),
  /**
   * Asynchronous: completes with the state once the lifecycle reaches a terminal status (days later, maybe);
   * fails with LIFECYCLE_WITHOUT_OUTCOME when it closes without one.
   */
  awaitOutcome: nexus.operation<LifecycleRef, PaymentState>(),
});

/**
 * Why an operation failed for good: the type of the ApplicationFailure a caller finds in the cause chain of
 * its NexusOperationFailure. Anything else (a handler error such as UNAVAILABLE) is retried by Temporal.
 */
export const PaymentsFailure = {
  /** The provider refused (e.g. the amount exceeds what remains); details[0] is the provider's issue. */
  providerRefused: 'PROVIDER_REFUSED',
  /** The idempotency key was first used for another request. */
  keyReused: 'IDEMPOTENCY_KEY_REUSED',
  /** The lifecycle's status forbids the request (e.g. a capture after a void). */
  stateForbids: 'LIFECYCLE_STATE_FORBIDS',
  /** The authorization cannot be managed (e.g. it is already voided at the provider). */
  notManageable: 'AUTHORIZATION_NOT_MANAGEABLE',
  /** No lifecycle exists for the authorization (also the outcome activity's failure, hence the tie). */
  notFound: 'LIFECYCLE_NOT_FOUND' satisfies (typeof OutcomeFailure)['notFound'],
  /**
   * awaitOutcome: the lifecycle closed without a terminal status (failed, terminated, cancelled or timed out),
   * or none came within the wait's bound; the message names which.
   */
  noOutcome: 'LIFECYCLE_WITHOUT_OUTCOME' satisfies (typeof OutcomeFailure)['noOutcome'],
} as const;

export type PaymentsFailureType = (typeof PaymentsFailure)[keyof typeof PaymentsFailure];

/**
 * The {@link PaymentsFailure} in a caller's error (a NexusOperationFailure): the failure down its cause chain
 * whose `type` is one of ours, with the service's message; undefined for any other failure.
 */
export function paymentsFailure(error: unknown): (Error & { type: PaymentsFailureType }) | undefined {
  const types: readonly unknown[] = Object.values(PaymentsFailure);
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (types.includes((cause as { type?: unknown }).type))
      return cause as Error & { type: PaymentsFailureType };
  }
  return undefined;
}

/** The endpoint name `npm start` and `npm run cluster` create. */
export const PAYMENTS_ENDPOINT = 'payments';
