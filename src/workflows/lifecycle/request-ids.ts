import type { LifecycleState } from './definitions';

// A state-changing provider call carries a request id derived from the caller's Idempotency-Key or, without
// one, from the workflow: a retry of the call, or of the Update under the same key, replays the provider's
// first answer instead of acting twice.

/** One per authorization: a void can only happen once, and a refused void stays refused. */
export function voidRequestId(state: LifecycleState): string {
  return `${state.workflowId}-void`;
}

export function reauthorizeRequestId(
  state: LifecycleState,
  reason: 'timer' | 'request',
  idempotencyKey?: string,
): string {
  if (idempotencyKey) return `${state.authorizationId}-reauthorize-${idempotencyKey}`;
  return `${state.workflowId}-reauthorize-${reason}-${state.reauthorizations.length + 1}`;
}
