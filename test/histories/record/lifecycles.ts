import type { AxiosResponse } from 'axios';
import type { WorkflowHandle } from '@temporalio/client';
import {
  lifecycleWorkflowId,
  type LifecycleState,
} from '../../../src/workflows/lifecycle/definitions';
import type { PaymentCapture, Refund } from '../../../src/providers/resources';
import { createSandboxAuthorization } from '../../helpers/lifecycle-stack';
import { eventually } from '../../helpers/eventually';
import { settledDeliveries } from './deliveries';
import type { RecordingStack } from './recording-stack';

// A scenario's steps through the HTTP API, each checked: a step that goes otherwise stops the recording.

const WAIT_MS = 60_000;

function answered<T>(response: AxiosResponse, status: number, what: string): T {
  if (response.status !== status) {
    throw new Error(`${what}: ${response.status} ${JSON.stringify(response.data)} (expected ${status})`);
  }
  return response.data as T;
}

/** Authorizes `value` USD at the sandbox and starts its lifecycle (201); answers the authorization id. */
export async function startLifecycle(
  stack: RecordingStack,
  value: string,
  body: Record<string, unknown> = {},
): Promise<string> {
  const { id } = await createSandboxAuthorization(stack.control, value);
  answered(await stack.api.post('/v1/lifecycles', { authorizationId: id, ...body }), 201, 'start');
  return id;
}

/** Posts a keyed command (`capture`, `reauthorize`, `captures/<id>/refund`); answers its body, of `status`. */
export async function command<T = PaymentCapture>(
  stack: RecordingStack,
  authorizationId: string,
  path: string,
  idempotencyKey: string,
  body: Record<string, unknown> = {},
  status = 200,
): Promise<T> {
  const response = await stack.api.post(`/v1/lifecycles/${authorizationId}/${path}`, body, {
    headers: { 'idempotency-key': idempotencyKey },
  });
  return answered<T>(response, status, `${path} under ${idempotencyKey}`);
}

export const capture = (
  stack: RecordingStack,
  authorizationId: string,
  idempotencyKey: string,
  body: Record<string, unknown> = {},
) => command<PaymentCapture>(stack, authorizationId, 'capture', idempotencyKey, body);

export const refund = (
  stack: RecordingStack,
  authorizationId: string,
  captureId: string,
  idempotencyKey: string,
  body: Record<string, unknown> = {},
) => command<Refund>(stack, authorizationId, `captures/${captureId}/refund`, idempotencyKey, body);

/** The lifecycle's whole state (the API leaves out some bookkeeping, such as the event ids seen). */
export async function lifecycleState(stack: RecordingStack, authorizationId: string): Promise<LifecycleState> {
  const state = await stack.lifecycles.state(authorizationId);
  if (!state) throw new Error(`no lifecycle for ${authorizationId}`);
  return state;
}

/** The lifecycle's latest run. */
export function lifecycleRun(stack: RecordingStack, authorizationId: string, runId?: string): WorkflowHandle {
  return stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId), runId);
}

/**
 * Waits until every delivery has been verified and the lifecycle has taken each one routed to it, and no
 * workflow task of its latest run is pending: its history has stopped growing until the next step.
 */
export async function settledLifecycle(stack: RecordingStack, authorizationId: string): Promise<LifecycleState> {
  const routedHere = (await settledDeliveries(stack)).flatMap(({ result }) =>
    result.outcome === 'delivered' && result.lifecycleWorkflowId === lifecycleWorkflowId(authorizationId)
      ? [result.event.id]
      : [],
  );
  const state = await eventually(
    () => lifecycleState(stack, authorizationId),
    (current) => routedHere.every((id) => current.seenEventIds.includes(id)),
    { what: `the lifecycle of ${authorizationId} to take its events`, timeoutMs: WAIT_MS },
  );
  await eventually(
    () => lifecycleRun(stack, authorizationId).describe(),
    ({ raw }) => !raw.pendingWorkflowTask,
    { what: `no workflow task of ${authorizationId} to be pending`, timeoutMs: WAIT_MS },
  );
  return state;
}

/** Waits until the lifecycle's state satisfies `done` (`what` names it), then until it is settled. */
export async function lifecycleReaches(
  stack: RecordingStack,
  authorizationId: string,
  done: (state: LifecycleState) => boolean,
  what: string,
): Promise<LifecycleState> {
  await eventually(() => lifecycleState(stack, authorizationId), done, { what, timeoutMs: WAIT_MS });
  return settledLifecycle(stack, authorizationId);
}

/** Waits until the lifecycle's latest run has closed (its late-event window over); answers that run. */
export async function closedRun(stack: RecordingStack, authorizationId: string): Promise<WorkflowHandle> {
  const { runId } = await eventually(
    () => lifecycleRun(stack, authorizationId).describe(),
    (described) => described.status.name === 'COMPLETED',
    { what: `the run of ${authorizationId} to close`, timeoutMs: WAIT_MS },
  );
  return lifecycleRun(stack, authorizationId, runId);
}
