import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import {
  ApplicationFailure,
  WorkflowNotFoundError,
  type UpdateDefinition,
  type WorkflowIdReusePolicy,
} from '@temporalio/common';
import {
  captureUpdate,
  completeUpdate,
  incrementUpdate,
  keyedAnswerQuery,
  LifecycleFailure,
  lifecycleWorkflowId,
  lifecycleWorkflowType,
  reauthorizeUpdate,
  reconcileUpdate,
  type ReconcileSummary,
  refundUpdate,
  startedQuery,
  type StartedState,
  stateQuery,
  terminalStatuses,
  voidUpdate,
  type CaptureInput,
  type CompleteInput,
  type IncrementInput,
  type LifecycleInput,
  type LifecycleStart,
  type LifecycleOperation,
  type LifecycleState,
  type OrderCompletion,
  type ReauthorizeInput,
  type RefundInput,
  type VoidInput,
} from '../workflows/lifecycle/definitions';
import type { authorizationLifecycle } from '../workflows/lifecycle/workflow';
import type { Authorization, PaymentCapture, Refund } from '../providers/resources';
import { providerOfStart } from '../provider-names';
import { betweenTasks, LifecycleRunEndedError, UPDATE_RETRY_DELAYS_MS } from './update-failures';
import { endedHow, endedRunState, runEndedOf } from './ended-runs';
import { lifecycleStartOptions, reopenedInput } from './lifecycle-starts';
import { RunHistory } from './run-history';

/** How long a start waits for the lifecycle to read its authorization: past the read's own 5 s. */
const START_READ_WAIT_MS = 6_400;

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

/**
 * The lifecycle was started (or joined) but has not read its authorization within the start's wait (no worker
 * ran its first task meanwhile): it goes on, and the same start again joins it.
 */
export class LifecycleStartPendingError extends Error {
  override name = 'LifecycleStartPendingError';
}

/**
 * The lifecycle has ended (e.g. CAPTURED or VOIDED, or its run was terminated) and takes no more requests.
 */
export class LifecycleEndedError extends Error {
  override name = 'LifecycleEndedError';
  constructor(readonly state: LifecycleState) {
    super(`the lifecycle has ended: ${endedHow(state)}`);
  }
}

/**
 * A reconcile of a lifecycle whose run has closed: it completed (after its late-event window, having read its
 * provider then unless the window was 0), or was ended from outside. A lifecycle reads its provider only while
 * its run is open; a closed one is reopened by a refund or by a provider event.
 */
export class LifecycleClosedError extends LifecycleEndedError {
  override name = 'LifecycleClosedError';
  constructor(state: LifecycleState) {
    super(state);
    const how = state.runEnded
      ? `its run was ${state.runEnded.how}${state.runEnded.at ? ` at ${state.runEnded.at}` : ''}, the authorization ${state.status}`
      : state.status;
    const last = state.lastReconciliation
      ? `its last reconciliation (${state.lastReconciliation.reason}) was at ${state.lastReconciliation.at}`
      : 'it has not reconciled';
    this.message = `the lifecycle has closed (${how}): it cannot read its provider any more; ${last}`;
  }
}

/**
 * The authorization is already managed by another caller's lifecycle: it cannot be adopted again. Says no
 * more (not the owner, not the state).
 */
export class AuthorizationAdoptedError extends Error {
  override name = 'AuthorizationAdoptedError';
  constructor(authorizationId: string) {
    super(
      `authorization ${authorizationId} is managed by another caller's lifecycle; it cannot be adopted again`,
    );
  }
}

/**
 * The Idempotency-Key was first used for another request (another operation, amount, …); the message names
 * the field that differs. The one shape of this refusal, whether the lifecycle is open or closed.
 */
export class IdempotencyKeyReusedError extends Error {
  override name = 'IdempotencyKeyReusedError';
}

/** An open lifecycle's refusal of a reused key (a rejected Update), as an IdempotencyKeyReusedError. */
function keyReuseRefusal(error: unknown): IdempotencyKeyReusedError | undefined {
  const failure = error instanceof WorkflowUpdateFailedError ? error.cause : undefined;
  if (!(failure instanceof ApplicationFailure) || failure.type !== LifecycleFailure.keyReused)
    return undefined;
  return new IdempotencyKeyReusedError(failure.message, { cause: error });
}

/** The caller a confined client acts for: the owner of what it starts; an admin sees every lifecycle. */
export type LifecycleOwner = { id: string; admin?: boolean };

/**
 * The typed library for order systems: everything the HTTP API does, straight over a Temporal client.
 * Each operation is idempotent under the caller's key, also after the lifecycle has ended.
 *
 * `forOwner(id)` gives the view of one caller (the API's per API key, Nexus's per caller namespace): what it
 * starts is owned by it, and another owner's lifecycle is to it what an unknown one is (null, or
 * WorkflowNotFoundError). Lifecycles the unconfined client started have none: only an admin sees them.
 */
export class LifecycleClient {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    /** Unset: the unconfined client (every lifecycle; what it starts has no owner unless the input names one). */
    private readonly owner?: LifecycleOwner,
  ) {}

  /** The view of one caller: it starts lifecycles owned by `owner` and sees only those (an admin sees all). */
  forOwner(owner: string, options: { admin?: boolean } = {}): LifecycleClient {
    return new LifecycleClient(this.client, this.taskQueue, { id: owner, admin: options.admin });
  }

  /** Whether this client may see a lifecycle of this state. */
  private sees(state: LifecycleState): boolean {
    return !this.owner || this.owner.admin === true || state.owner === this.owner.id;
  }

  /**
   * Refuses, as an unknown lifecycle, one this client may not see (or that does not exist). The owner is read
   * from the run's memo (set at start, carried over continue-as-new), which the server answers without the
   * worker: a command still waits for a stopped worker as before, and a closed lifecycle is not replayed.
   */
  private async confine(authorizationId: string): Promise<void> {
    if (!this.owner || this.owner.admin) return;
    if ((await this.ownerOf(authorizationId)) === this.owner.id) return;
    throw new WorkflowNotFoundError(
      'no lifecycle for this authorization',
      lifecycleWorkflowId(authorizationId),
      undefined,
    );
  }

  /**
   * The owner of the lifecycle of an authorization, from its run's memo (answered by the server, also for a run
   * that failed at start); null when there is no lifecycle or it has no owner.
   */
  async ownerOf(authorizationId: string): Promise<string | null> {
    try {
      const owner = (await this.handle(authorizationId).describe()).memo?.owner;
      return typeof owner === 'string' ? owner : null;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return null;
      throw error;
    }
  }

  /** A started or existing lifecycle, refused when another caller owns it. */
  private adopted(authorizationId: string, started: StartedLifecycle): StartedLifecycle {
    if (this.sees(started.state)) return started;
    throw new AuthorizationAdoptedError(authorizationId);
  }

  private handle(authorizationId: string): WorkflowHandle<typeof authorizationLifecycle> {
    return this.client.workflow.getHandle(lifecycleWorkflowId(authorizationId));
  }

  /**
   * The start of update-with-start (a refund that reopens a closed lifecycle): a run with `input`, or the one
   * that is open; `reusePolicy` says whether a closed lifecycle may run again. The summary is shown in the Web UI (encrypted; the codec server decrypts it);
   * the memo names the owner, for confine, and the provider; the search attributes operators filter on start
   * with the provider, the identity and the starting status (lifecycleStartOptions).
   */
  private startOperation(input: LifecycleInput, reusePolicy: WorkflowIdReusePolicy) {
    return new WithStartWorkflowOperation<typeof authorizationLifecycle>(lifecycleWorkflowType, {
      ...lifecycleStartOptions(input, this.taskQueue, reusePolicy),
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
  }

  /**
   * Starts the lifecycle of an authorization, or returns the one that exists, and answers once the lifecycle
   * has read the authorization (startedState): a start, and every retry of it, writes nothing to the
   * lifecycle's history but the run's own start. A lifecycle that failed may be started again; one that ended
   * otherwise is returned as it ended.
   */
  async start(request: LifecycleStart): Promise<StartedLifecycle> {
    const workflowId = lifecycleWorkflowId(request.authorizationId);
    const startRequestId = randomUUID();
    const input = withProvider(request);
    const owned = this.owner ? { ...input, owner: this.owner.id } : input;
    let runId: string;
    try {
      const handle = await this.client.workflow.start(lifecycleWorkflowType, {
        ...lifecycleStartOptions({ ...owned, startRequestId }, this.taskQueue, 'ALLOW_DUPLICATE_FAILED_ONLY'),
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
      // The run the start answered: the existing run's, when it joined one.
      runId = handle.firstExecutionRunId;
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError)
        return this.adopted(input.authorizationId, await this.ended(input.authorizationId));
      throw error;
    }
    const started = await this.startedState(workflowId, runId);
    const created = started.startRequestId === startRequestId;
    return this.adopted(input.authorizationId, { workflowId, runId, state: started.state, created });
  }

  /**
   * The lifecycle's state once it has read its authorization. The query is sent once a workflow task of the
   * run has completed, learnt by reading its history as it grows (RunHistory): a query that arrives during the
   * first task has the worker answer it before the read's result is used, which splits the task in two (three
   * more events). It answers null before the read (a task that completed without it); after a start that
   * failed, the run's failure is the answer, LifecycleStartFailedError.
   */
  private async startedState(workflowId: string, runId: string): Promise<StartedState> {
    const handle = this.client.workflow.getHandle<typeof authorizationLifecycle>(workflowId);
    const history = new RunHistory(this.client, { workflowId, runId });
    const deadline = Date.now() + START_READ_WAIT_MS;
    for (;;) {
      const next = await history.nextTaskOrClose(deadline);
      if (next === 'timed-out') {
        throw new LifecycleStartPendingError(
          `the lifecycle ${workflowId} has not read its authorization within ${START_READ_WAIT_MS} ms; it goes on: start it again to join it`,
        );
      }
      if (next === 'closed') {
        throw (
          (await this.startFailure(workflowId)) ??
          new Error(`the lifecycle ${workflowId} ended before it read its authorization`)
        );
      }
      const started = await handle.query(startedQuery);
      if (started) return started;
    }
  }

  /** A lifecycle that has ended (e.g. CAPTURED): its final state. */
  private async ended(authorizationId: string): Promise<StartedLifecycle> {
    const handle = this.handle(authorizationId);
    const { state, runId } = await this.read(authorizationId);
    if (!state) throw new Error(`the lifecycle ${handle.workflowId} ended without a state`);
    return { workflowId: handle.workflowId, runId, state, created: false };
  }

  /** The current run's state and id; a run ended from outside reads as ended, with how (ended-runs.ts). */
  private async read(authorizationId: string): Promise<{ state: LifecycleState | null; runId: string }> {
    const handle = this.handle(authorizationId);
    const [state, description] = await Promise.all([handle.query(stateQuery), handle.describe()]);
    const runEnded = runEndedOf(description);
    return { state: state && runEnded ? endedRunState(state, runEnded) : state, runId: description.runId };
  }

  /** Why a lifecycle failed before it answered, e.g. AUTHORIZATION_NOT_MANAGEABLE; undefined if it did not. */
  private async startFailure(workflowId: string): Promise<LifecycleStartFailedError | undefined> {
    const failure = await this.client.workflow
      .getHandle(workflowId)
      .result()
      .then(
        () => undefined,
        (error: unknown) => (error instanceof WorkflowFailedError ? error.cause : undefined),
      );
    return (
      failure && new LifecycleStartFailedError(`the lifecycle ended at start: ${failure.message}`, failure)
    );
  }

  /** The lifecycle's state, or null when no lifecycle exists for the authorization (or this client may not see it). */
  async state(authorizationId: string): Promise<LifecycleState | null> {
    try {
      const { state } = await this.read(authorizationId);
      return state && this.sees(state) ? state : null;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return null;
      throw error;
    }
  }

  /** Captures some or all of what remains, once per `request.idempotencyKey`. */
  capture(authorizationId: string, request: CaptureInput): Promise<PaymentCapture> {
    return this.update(authorizationId, 'capture', captureUpdate, request);
  }

  void(authorizationId: string, request: VoidInput = {}): Promise<Authorization | null> {
    return this.update(authorizationId, 'void', voidUpdate, request);
  }

  /**
   * Completes the order: captures nothing more and releases what remains held (the provider voids the
   * authorization); the captures stand, and can still be refunded.
   */
  complete(authorizationId: string, request: CompleteInput = {}): Promise<OrderCompletion> {
    return this.update(authorizationId, 'complete', completeUpdate, request);
  }

  /** Raises the current hold by `request.amount` in place (Stripe's incremental authorization), once per key. */
  increment(authorizationId: string, request: IncrementInput): Promise<Authorization> {
    return this.update(authorizationId, 'increment', incrementUpdate, request);
  }

  reauthorize(authorizationId: string, request: ReauthorizeInput): Promise<Authorization> {
    return this.update(authorizationId, 'reauthorize', reauthorizeUpdate, request);
  }

  /**
   * Has the lifecycle read its provider and book what it holds (source `read`); what its ledger holds and the
   * provider does not is recorded as a discrepancy. A lifecycle whose run has closed (completed, terminated or
   * timed out) is refused with LifecycleClosedError.
   */
  async reconcile(authorizationId: string): Promise<ReconcileSummary> {
    await this.confine(authorizationId);
    try {
      return await this.handle(authorizationId).executeUpdate(reconcileUpdate);
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      const state = await this.state(authorizationId).catch(() => null);
      if (!state) throw error;
      throw new LifecycleClosedError(state);
    }
  }

  /**
   * Refunds one of the lifecycle's captures, in part (`amount`) or in full (no amount), idempotently under
   * `request.idempotencyKey`. Refunds come days or weeks after the capture, when the lifecycle may have
   * closed: then it is reopened for the refund (see {@link reopenForRefund}), so the refund is still one
   * durable Update.
   */
  async refund(
    authorizationId: string,
    captureId: string,
    request: Omit<RefundInput, 'captureId'>,
  ): Promise<Refund> {
    const refund: RefundInput = { ...request, captureId };
    try {
      return await this.update(authorizationId, 'refund', refundUpdate, refund);
    } catch (error) {
      if (!(error instanceof LifecycleEndedError)) throw error;
      return this.reopenForRefund(error.state, refund);
    }
  }

  /**
   * A closed lifecycle that ended (CAPTURED, REFUNDED, …) takes a refund in a new run of the same workflow
   * id, started from its final state (captures, refunds and keyed answers) with the refund Update in the same
   * request (update-with-start). Concurrent refunds join that one run, where the key decides as usual; the
   * run stays open for another late-event window to record the provider's REFUNDED event, then closes.
   */
  private async reopenForRefund(state: LifecycleState, request: RefundInput): Promise<Refund> {
    if (!terminalStatuses.includes(state.status)) throw new LifecycleEndedError(state);
    const startWorkflowOperation = this.startOperation(reopenedInput(state), 'ALLOW_DUPLICATE');
    try {
      return await this.client.workflow.executeUpdateWithStart(refundUpdate, {
        args: [request],
        startWorkflowOperation,
      });
    } catch (error) {
      throw keyReuseRefusal(error) ?? error;
    }
  }

  /**
   * Each attempt is its own Update (the SDK gives it a fresh id), so a retry after a failed attempt reaches
   * the lifecycle again; the key travels in the request, where the lifecycle remembers answers under it.
   * A keyed Update that met the run's end or a failed workflow task is sent again a few times, to the
   * workflow id (so to its current run): the key makes that safe. Without a key nothing is sent twice.
   */
  private async update<T, Request extends CaptureInput | VoidInput | ReauthorizeInput | RefundInput>(
    authorizationId: string,
    operation: LifecycleOperation,
    definition: UpdateDefinition<T, [Request]>,
    request: Request,
  ): Promise<T> {
    await this.confine(authorizationId);
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.updateOnce(authorizationId, operation, definition, request);
      } catch (error) {
        const passing = betweenTasks(error);
        const delay = UPDATE_RETRY_DELAYS_MS[attempt];
        if (!passing || !request.idempotencyKey || delay === undefined) throw passing ?? error;
        await sleep(delay);
      }
    }
  }

  private async updateOnce<T, Request extends CaptureInput | VoidInput | ReauthorizeInput | RefundInput>(
    authorizationId: string,
    operation: LifecycleOperation,
    definition: UpdateDefinition<T, [Request]>,
    request: Request,
  ): Promise<T> {
    try {
      return await this.handle(authorizationId).executeUpdate(definition, { args: [request] });
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw keyReuseRefusal(error) ?? error;
      return this.closedAnswer(authorizationId, operation, request, error);
    }
  }

  private async isRunning(authorizationId: string): Promise<boolean> {
    const description = await this.handle(authorizationId)
      .describe()
      .catch(() => null);
    return description?.status.name === 'RUNNING';
  }

  /**
   * A retried request whose first attempt ended the lifecycle (e.g. the final capture) meets a closed
   * workflow: the lifecycle answers, under the key and at this caller's time, what it remembered. A lifecycle
   * that is still open met the request between two runs.
   */
  private async closedAnswer<T>(
    authorizationId: string,
    operation: LifecycleOperation,
    request: CaptureInput | VoidInput | ReauthorizeInput | RefundInput,
    notFound: WorkflowNotFoundError,
  ): Promise<T> {
    const { idempotencyKey } = request;
    const keyed = idempotencyKey
      ? await this.handle(authorizationId)
          .query(keyedAnswerQuery, { operation, idempotencyKey, request, at: Date.now() })
          .catch(() => null)
      : null;
    if (keyed && 'conflict' in keyed) throw new IdempotencyKeyReusedError(keyed.conflict);
    if (keyed) return keyed.answer as T;
    const state = await this.state(authorizationId).catch(() => null);
    if (!state) throw notFound;
    if (await this.isRunning(authorizationId)) {
      throw new LifecycleRunEndedError('the lifecycle moved to a new run while taking the request', {
        cause: notFound,
      });
    }
    throw new LifecycleEndedError(state);
  }
}

/** The start with its provider: the one it names, else Stripe's for a `pi_…` id, else PayPal's. */
export function withProvider(input: LifecycleStart): LifecycleInput {
  return { ...input, provider: providerOfStart(input) };
}
