import { WorkflowNotFoundError } from '@temporalio/common';
import { getClient, startWorkflow, WorkflowRunOperationHandler } from '@temporalio/nexus';
import * as nexus from 'nexus-rpc';
import type { z } from 'zod';
import { LifecycleClient } from '../client/lifecycle-client';
import { lifecycleWorkflowId, type LifecycleInput } from '../workflows/lifecycle/definitions';
import { providerOfStart, unconfiguredProvider, type ProviderName } from '../provider-names';
import { paymentState } from '../workflows/payment-outcome/definitions';
import type { paymentOutcome } from '../workflows/payment-outcome/workflow';
import { authorizedCaller, callerNamespace, type NexusCallers, type PaymentsOperation } from './callers';
import { answerWithCallerKey } from '../codec/endpoint-keys';
import { toNexusError } from './errors';
import {
  captureInput,
  lifecycleRefInput,
  parseInput,
  reauthorizeInput,
  startLifecycleInput,
  voidInput,
  incrementInput,
} from './inputs';
import { boundOutcomeWaits, outcomeWorkflowId } from './outcome-waits';
import { paymentsService, type PaymentState } from './service';

export interface PaymentsHandlerOptions {
  /** The lifecycles' task queue: the worker's own. */
  taskQueue: string;
  /** What a start request leaves out, as in the API. */
  defaults: Pick<
    LifecycleInput,
    | 'reauthorizeAfter'
    | 'expiryPolicy'
    | 'lateEventWindow'
    | 'idempotencyKeyRetention'
    | 'timerCallTimeout'
    | 'eventGracePeriod'
  >;
  /** The providers this worker runs lifecycles on (PAYMENTS_PROVIDER); unset: any. */
  providers?: readonly ProviderName[];
  /** The caller namespaces allowed, per operation (NEXUS_CALLERS). */
  callers: NexusCallers;
  /** Open awaitOutcome waits per caller (NEXUS_OUTCOME_WAITS_PER_CALLER). */
  outcomeWaitsPerCaller: number;
}

// Leaves the server time to receive the answer before its request deadline (10 s by default).
const DEADLINE_MARGIN_MS = 1_000;

/**
 * A synchronous operation is one request with a deadline. Work that outlasts it (a slow provider) keeps
 * running in the lifecycle; the handler answers UNAVAILABLE, and Temporal's retry, under the same request id
 * and so the same idempotency key, waits for the same answer in the lifecycle instead of asking again.
 */
async function withinRequestDeadline<T>(ctx: nexus.StartOperationContext, work: Promise<T>): Promise<T> {
  if (!ctx.requestDeadline) return work;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new nexus.HandlerError('UNAVAILABLE', 'the lifecycle is still working on this request; retry', {
            retryableOverride: true,
          }),
        ),
      Math.max(0, ctx.requestDeadline!.getTime() - Date.now() - DEADLINE_MARGIN_MS),
    );
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The caller namespace, once it may call the operation. What the task answers, a refusal included, is sealed
 * with that namespace's endpoint key: the caller holds no other.
 */
function callerOf(
  callers: NexusCallers,
  ctx: nexus.StartOperationContext,
  operation: PaymentsOperation,
): string {
  const namespace = callerNamespace(ctx);
  if (namespace !== undefined) answerWithCallerKey(namespace);
  return authorizedCaller(callers, ctx, operation);
}

/** A synchronous operation: an allowed caller, validated input, the request deadline, errors in Nexus terms. */
function syncOperation<Schema extends z.ZodType, O>(
  callers: NexusCallers,
  operation: PaymentsOperation,
  schema: Schema,
  run: (input: z.output<Schema>, ctx: nexus.StartOperationContext, caller: string) => Promise<O>,
) {
  return async (ctx: nexus.StartOperationContext, input: unknown): Promise<O> => {
    const caller = callerOf(callers, ctx, operation);
    try {
      return await withinRequestDeadline(ctx, run(parseInput(schema, input), ctx, caller));
    } catch (error) {
      throw toNexusError(error);
    }
  };
}

/** The caller's idempotency key or, without one, the operation's request id (Temporal's retries repeat it). */
function withKey<Request extends { idempotencyKey?: string }>(
  request: Request,
  ctx: nexus.StartOperationContext,
): Request {
  return { ...request, idempotencyKey: request.idempotencyKey ?? ctx.requestId };
}

/** A Nexus caller's owner id: never an API caller's (those have no ":"), so the two doors never share one. */
export function nexusOwner(callerNamespace: string): string {
  return `nexus:${callerNamespace}`;
}

/**
 * The payments service's handlers: each is the call the HTTP API makes, through the same LifecycleClient,
 * confined to the caller namespace's own lifecycles (another's is to it what an unknown one is).
 */
export function paymentsServiceHandler(options: PaymentsHandlerOptions) {
  const { callers } = options;
  const lifecycles = (caller: string) =>
    new LifecycleClient(getClient(), options.taskQueue).forOwner(nexusOwner(caller));
  return nexus.serviceHandler(paymentsService, {
    startLifecycle: syncOperation(
      callers,
      'startLifecycle',
      startLifecycleInput,
      async (input, _ctx, caller) => {
        const refusal = options.providers && unconfiguredProvider(providerOfStart(input), options.providers);
        if (refusal) throw new nexus.HandlerError('BAD_REQUEST', refusal);
        const started = await lifecycles(caller).start({ ...options.defaults, ...input });
        return { ...started, state: paymentState(started.state) };
      },
    ),
    capture: syncOperation(callers, 'capture', captureInput, ({ authorizationId, ...request }, ctx, caller) =>
      lifecycles(caller).capture(authorizationId, withKey(request, ctx)),
    ),
    void: syncOperation(callers, 'void', voidInput, ({ authorizationId, ...request }, ctx, caller) =>
      lifecycles(caller).void(authorizationId, withKey(request, ctx)),
    ),
    complete: syncOperation(callers, 'complete', voidInput, ({ authorizationId, ...request }, ctx, caller) =>
      lifecycles(caller).complete(authorizationId, withKey(request, ctx)),
    ),
    increment: syncOperation(
      callers,
      'increment',
      incrementInput,
      ({ authorizationId, ...request }, ctx, caller) =>
        lifecycles(caller).increment(authorizationId, withKey(request, ctx)),
    ),
    reauthorize: syncOperation(
      callers,
      'reauthorize',
      reauthorizeInput,
      ({ authorizationId, ...request }, ctx, caller) =>
        lifecycles(caller).reauthorize(authorizationId, withKey(request, ctx)),
    ),
    state: syncOperation(callers, 'state', lifecycleRefInput, async ({ authorizationId }, _ctx, caller) => {
      const state = await lifecycles(caller).state(authorizationId);
      return state && paymentState(state);
    }),
    // One waiting workflow per operation (its id carries the caller and the request id, so a retried start
    // joins it), at most outcomeWaitsPerCaller open per caller, only on the caller's own lifecycle (the wait
    // itself reads the lifecycle unconfined; its owner never changes), even one that failed at start.
    awaitOutcome: new WorkflowRunOperationHandler<unknown, PaymentState>(async (ctx, input) => {
      const caller = callerOf(callers, ctx, 'awaitOutcome');
      const { authorizationId } = parseInput(lifecycleRefInput, input);
      if ((await lifecycles(caller).ownerOf(authorizationId)) !== nexusOwner(caller)) {
        const unknown = new WorkflowNotFoundError(
          'no lifecycle',
          lifecycleWorkflowId(authorizationId),
          undefined,
        );
        throw toNexusError(unknown);
      }
      const workflowId = outcomeWorkflowId(caller, authorizationId, ctx.requestId);
      await boundOutcomeWaits(getClient(), caller, workflowId, options.outcomeWaitsPerCaller);
      return startWorkflow<typeof paymentOutcome>(ctx, 'paymentOutcome', {
        workflowId,
        args: [authorizationId],
      });
    }),
  });
}
