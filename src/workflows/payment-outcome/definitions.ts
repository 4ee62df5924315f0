import { sharedCaptureIdsOf } from '../../providers/shared-capture-translations';
import type { CaptureRecord, LifecycleState } from '../lifecycle/definitions';

// What the payment-outcome workflow shares with its activity and with the Nexus service that starts it.

/** A capture as callers see it: one into a charge several captures share names the charge. */
export type ShownCapture = CaptureRecord & { chargeId?: string };

/** The lifecycle's state as callers see it: without the answers and event ids it keeps for itself. */
export type PaymentState = Omit<LifecycleState, 'keyedAnswers' | 'seenEventIds' | 'captures'> & {
  captures: ShownCapture[];
};

/** The state as the API and the Nexus operations show it. */
export function paymentState(state: LifecycleState): PaymentState {
  const { keyedAnswers: _answers, seenEventIds: _seen, ...shown } = state;
  const shared = sharedCaptureIdsOf(state);
  if (!shared) return shown;
  return {
    ...shown,
    captures: state.captures.map((capture) => ({ ...capture, chargeId: shared.providerIdOf(capture.id) })),
  };
}

/** The failure types of the outcome's activity. */
export const OutcomeFailure = {
  /** The outcome is not reached yet: retried by the waiting workflow's retry policy. */
  pending: 'PAYMENT_OUTCOME_PENDING',
  /** No lifecycle exists for the authorization: final, and the Nexus caller's PaymentsFailure.notFound. */
  notFound: 'LIFECYCLE_NOT_FOUND',
  /**
   * The lifecycle closed before a terminal status (failed, terminated, cancelled or timed out), or no terminal
   * status came within the wait's bound: final, and the Nexus caller's PaymentsFailure.noOutcome.
   */
  noOutcome: 'LIFECYCLE_WITHOUT_OUTCOME',
} as const;

/** The outcome's activity, implemented in src/activities/payment-outcome.ts. */
export interface OutcomeActivities {
  /**
   * The lifecycle's state once it is terminal; a retryable OutcomeFailure.pending failure until then, and a
   * final OutcomeFailure.noOutcome one when it closed without a terminal status.
   */
  paymentOutcome(authorizationId: string): Promise<PaymentState>;
}
