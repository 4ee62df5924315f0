import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import {
  captureUpdate,
  lifecycleWorkflowId,
  lifecycleWorkflowType,
  reauthorizeUpdate,
  stateQuery,
  voidUpdate,
  type CaptureInput,
  type LifecycleInput,
  type LifecycleState,
  type ReauthorizeInput,
} from '../workflows/lifecycle/definitions';
import type { authorizationLifecycle } from '../workflows/lifecycle/workflow';
import type { Authorization, PaymentCapture } from '../payments/schemas';

export interface StartedLifecycle {
  workflowId: string;
  runId: string;
  state: LifecycleState;
  /** False when a lifecycle for this authorization already existed and was returned instead. */
  created: boolean;
}

/** The lifecycle ended before it could answer: its failure, e.g. AUTHORIZATION_NOT_MANAGEABLE. */
export class LifecycleStartFailedError extends Error {
  override name = 'LifecycleStartFailedError';
  constructor(
    message: string,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}

/** The lifecycle has ended (e.g. CAPTURED or VOIDED) and takes no more requests. */
export class LifecycleEndedError extends Error {
  override name = 'LifecycleEndedError';
  constructor(readonly state: LifecycleState) {
    super(`the lifecycle has ended: the authorization is ${state.status}`);
  }
}

/**
 * The typed library for order systems: everything the HTTP API does, straight over a Temporal client.
 * Each operation is idempotent under the caller's key, also after the lifecycle has ended.
 */
export class LifecycleClient {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  private handle(authorizationId: string): WorkflowHandle<typeof authorizationLifecycle> {
    return this.client.workflow.getHandle(lifecycleWorkflowId(authorizationId));
  }

  /** Starts the lifecycle of an authorization, or returns the one that exists; resolves once it has read it. */
  async start(input: LifecycleInput, waitMs = 15_000): Promise<StartedLifecycle> {
    const workflowId = lifecycleWorkflowId(input.authorizationId);
    let created = true;
    try {
      await this.client.workflow.start<typeof authorizationLifecycle>(lifecycleWorkflowType, {
        workflowId,
        taskQueue: this.taskQueue,
        args: [input],
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      created = false;
    }
    const handle = this.handle(input.authorizationId);
    const state = await this.waitForState(handle, waitMs);
    const { runId } = await handle.describe();
    return { workflowId, runId, state, created };
  }

  private async waitForState(handle: WorkflowHandle, waitMs: number): Promise<LifecycleState> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const state = await handle.query(stateQuery);
      if (state) return state;
      const { status } = await handle.describe();
      if (status.name !== 'RUNNING') {
        const failure = await handle.result().then(
          () => undefined,
          (error: unknown) => (error instanceof WorkflowFailedError ? error.cause : error),
        );
        throw new LifecycleStartFailedError(`the lifecycle ended at start: ${String(failure)}`, failure);
      }
      if (Date.now() > deadline)
        throw new Error(`the lifecycle ${handle.workflowId} did not start within ${waitMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The lifecycle's state, or null when no lifecycle exists for the authorization. */
  async state(authorizationId: string): Promise<LifecycleState | null> {
    try {
      return await this.handle(authorizationId).query(stateQuery);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return null;
      throw error;
    }
  }

  capture(authorizationId: string, input: CaptureInput, idempotencyKey?: string): Promise<PaymentCapture> {
    return this.update(authorizationId, idempotencyKey, () =>
      this.handle(authorizationId).executeUpdate(captureUpdate, {
        args: [{ ...input, idempotencyKey }],
        updateId: idempotencyKey,
      }),
    );
  }

  void(authorizationId: string, idempotencyKey?: string): Promise<Authorization | null> {
    return this.update(authorizationId, idempotencyKey, () =>
      this.handle(authorizationId).executeUpdate(voidUpdate, {
        args: [{ idempotencyKey }],
        updateId: idempotencyKey,
      }),
    );
  }

  reauthorize(
    authorizationId: string,
    input: ReauthorizeInput,
    idempotencyKey?: string,
  ): Promise<Authorization> {
    return this.update(authorizationId, idempotencyKey, () =>
      this.handle(authorizationId).executeUpdate(reauthorizeUpdate, {
        args: [{ ...input, idempotencyKey }],
        updateId: idempotencyKey,
      }),
    );
  }

  /**
   * A retried request whose first attempt ended the lifecycle (e.g. the final capture) meets a closed
   * workflow; the answer it is owed is in the final state, remembered under its key.
   */
  private async update<T>(
    authorizationId: string,
    key: string | undefined,
    send: () => Promise<T>,
  ): Promise<T> {
    try {
      return await send();
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      const state = await this.state(authorizationId).catch(() => null);
      if (!state) throw error;
      if (key && key in state.answeredKeys) return state.answeredKeys[key] as T;
      throw new LifecycleEndedError(state);
    }
  }
}
