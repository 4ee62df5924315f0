import type { LifecycleState, RefundInput } from './definitions';

// A state-changing provider call carries an idempotency key of its own, derived from the caller's
// Idempotency-Key or, without one, from the workflow and a sequence number: a retry of the call, or of the
// Update under the same key, replays the provider's first answer instead of acting twice.
//
// Since idempotencyScheme 2 a keyed id is `<resource>/<operation>/<key>`: resource ids and keys cannot hold a
// "/", so no two (lifecycle, operation, key) share an id (before, capture key "reauthorize-X" and reauthorize
// key "X" did). At most 64 + 13 + 64 characters, inside Stripe's 255. Lifecycles started before keep the ids
// they sent, so a retry after a deploy replays instead of acting again.

type KeyedOperation = 'capture' | 'refund' | 'reauthorize';

function keyedId(state: LifecycleState, resourceId: string, operation: KeyedOperation, key: string): string {
  if (state.idempotencyScheme === 2) return `${resourceId}/${operation}/${key}`;
  return operation === 'reauthorize' ? `${resourceId}-reauthorize-${key}` : `${resourceId}-${key}`;
}

/** The authorization id and the key; without a key, the workflow and the capture's number. */
export function captureIdempotencyKey(state: LifecycleState, idempotencyKey?: string): string {
  if (idempotencyKey) return keyedId(state, state.authorizationId, 'capture', idempotencyKey);
  return `${state.workflowId}-capture-${state.captureSequence}`;
}

/** The capture id and the key; without a key, the workflow and the refund's number. */
export function refundIdempotencyKey(state: LifecycleState, request: RefundInput): string {
  if (request.idempotencyKey) return keyedId(state, request.captureId, 'refund', request.idempotencyKey);
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
  if (idempotencyKey) return keyedId(state, state.authorizationId, 'reauthorize', idempotencyKey);
  return `${state.workflowId}-reauthorize-${reason}-${state.reauthorizations.length + 1}`;
}
