import type { LifecycleState, RefundInput } from './definitions';

// A state-changing provider call carries an idempotency key of its own, derived from the caller's
// Idempotency-Key or, without one, from the workflow and a sequence number: a retry of the call, or of the
// Update under the same key, replays the provider's first answer instead of acting twice.
//
// A keyed id is `<resource>/<operation>/<key>`: resource ids and keys cannot hold a "/", so no two
// (lifecycle, operation, key) share an id. At most 64 + 13 + 64 characters, inside Stripe's 255.

type KeyedOperation = 'capture' | 'refund' | 'reauthorize';

function keyedId(resourceId: string, operation: KeyedOperation, key: string): string {
  return `${resourceId}/${operation}/${key}`;
}

/** The authorization id and the key; without a key, the workflow and the capture's number. */
export function captureIdempotencyKey(state: LifecycleState, idempotencyKey?: string): string {
  if (idempotencyKey) return keyedId(state.authorizationId, 'capture', idempotencyKey);
  return `${state.workflowId}-capture-${state.captureSequence}`;
}

/** The capture id and the key; without a key, the workflow and the refund's number. */
export function refundIdempotencyKey(state: LifecycleState, request: RefundInput): string {
  if (request.idempotencyKey) return keyedId(request.captureId, 'refund', request.idempotencyKey);
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
  if (idempotencyKey) return keyedId(state.authorizationId, 'reauthorize', idempotencyKey);
  return `${state.workflowId}-reauthorize-${reason}-${state.reauthorizations.length + 1}`;
}
