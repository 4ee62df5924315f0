import type { LifecycleState, RefundInput } from './definitions';

// A state-changing provider call carries an idempotency key of its own, derived from the caller's
// Idempotency-Key or, without one, from the workflow and a sequence number: a retry of the call, or of the
// Update under the same key, replays the provider's first answer instead of acting twice.

/** The authorization id and the key; without a key, the workflow and the capture's number. */
export function captureIdempotencyKey(state: LifecycleState, idempotencyKey?: string): string {
  if (idempotencyKey) return `${state.authorizationId}-${idempotencyKey}`;
  return `${state.workflowId}-capture-${state.captureSequence}`;
}

/** The capture id and the key; without a key, the workflow and the refund's number. */
export function refundIdempotencyKey(state: LifecycleState, request: RefundInput): string {
  if (request.idempotencyKey) return `${request.captureId}-${request.idempotencyKey}`;
  return `${state.workflowId}-refund-${state.refundSequence}`;
}

/** One per authorization: a void can only happen once, and a refused void stays refused. */
export function voidIdempotencyKey(state: LifecycleState): string {
  return `${state.workflowId}-void`;
}

/** The authorization id and the key; without a key, the workflow, the reason and the number. */
export function reauthorizeIdempotencyKey(
  state: LifecycleState,
  reason: 'timer' | 'request',
  idempotencyKey?: string,
): string {
  if (idempotencyKey) return `${state.authorizationId}-reauthorize-${idempotencyKey}`;
  return `${state.workflowId}-reauthorize-${reason}-${state.reauthorizations.length + 1}`;
}
