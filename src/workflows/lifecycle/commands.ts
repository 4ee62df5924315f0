import { ActivityFailure, log, setCurrentDetails } from '@temporalio/workflow';
import type { KeyedActionFinding } from '../../providers/port';
import type { Authorization, PaymentCapture, Refund } from '../../providers/resources';
import {
  keyedCalls,
  ledgerCalls,
  ofProvider,
  orderSystemCalls,
  type PaymentsCalls,
} from './activity-options';
import { awaitEvent, eventArrived, eventsRead, postponeOverdue } from './awaited-events';
import { bookHoldings, holdingsRequestOf } from './reconcile';
import {
  LifecycleFailure,
  type CaptureInput,
  type CompleteInput,
  type IncrementInput,
  type KeyedAnswerLookup,
  type KeyedAnswerQuestion,
  type LifecycleInput,
  type LifecycleOperation,
  type LifecycleState,
  type OrderCompletion,
  type PaymentEvent,
  type PendingAttempt,
  type ReauthorizeInput,
  type ReconcileReason,
  type ReconcileSummary,
  type RefundInput,
  type RequestFingerprint,
  type VoidInput,
} from './definitions';
import {
  beginAttempt,
  capturePlan,
  endAttempt,
  incrementIdempotencyKey,
  isDefiniteFailure,
  keyMayBeForgotten,
  KeyedRequests,
  keyedAnswer,
  refundPlan,
  requestFingerprint,
  resentAttempt,
  voidRequest,
} from './keyed-requests';
import { applyEvent, bookCapture, bookIncrement, bookRefund, markCompleted, markEnded } from './state';
import { shouldContinueAsNew } from './run-length';
import { fireTimer, providerTimerCalls, reauthorize, type TimerKind } from './timers';
import {
  assertOpen,
  completeAmount,
  incrementTotal,
  inLifecycleCurrency,
  reauthorizeAmount,
  refuse,
} from './validation';
import { lifecycleDetails, type LifecycleVisibility } from './visibility';

/** The request with its key: a capture or refund without one is refused by its validator (KeyedRequests). */
function keyed<Request extends { idempotencyKey?: string }>(
  request: Request,
): Request & { idempotencyKey: string } {
  const { idempotencyKey } = request;
  if (!idempotencyKey) return refuse(LifecycleFailure.invalidRequest, 'Idempotency-Key: required');
  return { ...request, idempotencyKey };
}

/** A keyed call to the provider, and the read of what it did once the provider may have forgotten its key. */
type KeyedCall<Attempt extends PendingAttempt, T> = {
  send: (attempt: Attempt) => Promise<T>;
  find: (attempt: Attempt) => Promise<KeyedActionFinding<T>>;
};

/** A run that is to continue as new starts no new work: the client sends the request again, to the next run. */
function refuseWhileContinuing(): void {
  if (shouldContinueAsNew()) {
    refuse(LifecycleFailure.runContinuing, 'the lifecycle is moving to a new run; send the request again');
  }
}

/** One provider call at a time, so a timer's reauthorization never races a capture. */
class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.tail.then(work, work);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/**
 * The lifecycle's state and what changes it: the order system's commands (capture, void, reauthorize,
 * refund), each with its validator, the provider's events and the timer's deadlines. Each command is
 * answered once per Idempotency-Key; its validator refuses, before anything enters history, a request the
 * state does not allow (unless its key was answered already).
 */
export class LifecycleCommands {
  private readonly queue = new SerialQueue();
  private readonly keyed: KeyedRequests;
  /** The provider's calls an order system waits on: reauthorize, then captures, refunds and voids. */
  private readonly calls: PaymentsCalls;
  private readonly keyedCalls: typeof keyedCalls;
  private changeCount = 0;

  constructor(
    private readonly state: LifecycleState,
    retentionMs: number,
    private readonly visibility: LifecycleVisibility,
    /** How long a movement the lifecycle made waits for its event before the lifecycle reads its provider. */
    private readonly graceMs: number,
  ) {
    this.keyed = new KeyedRequests(state, retentionMs);
    this.calls = ofProvider(orderSystemCalls, state.provider);
    this.keyedCalls = ofProvider(keyedCalls, state.provider);
  }

  /** How many times the state changed: the main loop wakes when it moves. */
  get changes(): number {
    return this.changeCount;
  }

  validateCapture(request: CaptureInput): void {
    const fingerprint = this.fingerprint(request);
    if (!this.keyed.isKnown('capture', request.idempotencyKey, fingerprint))
      capturePlan(this.state, keyed(request), fingerprint);
  }

  /** Plan (pure), record the attempt, call the provider, book the answer, reply. */
  capture(request: CaptureInput): Promise<PaymentCapture> {
    const fingerprint = this.fingerprint(request);
    return this.once('capture', request.idempotencyKey, fingerprint, async () => {
      const plan = capturePlan(this.state, keyed(request), fingerprint);
      const { attempt, answer } = await this.attempt(plan, {
        send: (sending) => this.keyedCalls.captureAuthorization(sending.sent),
        find: (sent) => this.keyedCalls.findCapture(sent.sent),
      });
      const capture = bookCapture(
        this.state,
        attempt.sent,
        inLifecycleCurrency(this.state, answer, 'capture'),
      );
      this.awaitEvent('capture', answer);
      this.stateChanged();
      return capture;
    });
  }

  validateVoid(request: VoidInput): void {
    if (!this.keyed.isKnown('void', request.idempotencyKey, {})) assertOpen(this.state, 'void');
  }

  void(request: VoidInput): Promise<Authorization | null> {
    return this.once('void', request.idempotencyKey, {}, async () => {
      assertOpen(this.state, 'void');
      const voided = await this.keyedCalls.voidAuthorization(voidRequest(this.state));
      markEnded(this.state, 'VOIDED');
      this.stateChanged();
      return voided;
    });
  }

  validateComplete(request: CompleteInput): void {
    if (!this.keyed.isKnown('complete', request.idempotencyKey, {})) completeAmount(this.state);
  }

  /** Captures nothing more and releases what remains held: the provider voids the authorization. */
  complete(request: CompleteInput): Promise<OrderCompletion> {
    return this.once('complete', request.idempotencyKey, {}, async () => {
      const released = { currency_code: this.state.currency, value: completeAmount(this.state) };
      await this.keyedCalls.voidAuthorization(voidRequest(this.state));
      markCompleted(this.state);
      this.stateChanged();
      return { authorizationId: this.state.currentAuthorizationId, released, status: this.state.status };
    });
  }

  validateReauthorize(request: ReauthorizeInput): void {
    if (!this.keyed.isKnown('reauthorize', request.idempotencyKey, this.fingerprint(request)))
      reauthorizeAmount(this.state, request);
  }

  reauthorize(request: ReauthorizeInput): Promise<Authorization> {
    return this.once('reauthorize', request.idempotencyKey, this.fingerprint(request), async () => {
      const total = reauthorizeAmount(this.state, request);
      const authorization = await reauthorize(
        this.state,
        this.calls,
        total,
        'request',
        request.idempotencyKey,
      );
      this.stateChanged();
      return authorization;
    });
  }

  validateIncrement(request: IncrementInput): void {
    if (!this.keyed.isKnown('increment', request.idempotencyKey, this.fingerprint(request)))
      incrementTotal(this.state, request);
  }

  /** Raises the current hold in place (an incremental authorization); answers it with its new amount. */
  increment(request: IncrementInput): Promise<Authorization> {
    return this.once('increment', request.idempotencyKey, this.fingerprint(request), async () => {
      // The validator refused a request without a key.
      const key = request.idempotencyKey ?? '';
      const total = incrementTotal(this.state, request);
      const authorization = await this.calls.incrementAuthorization({
        authorizationId: this.state.currentAuthorizationId,
        amount: { currency_code: this.state.currency, value: total },
        idempotencyKey: incrementIdempotencyKey(this.state, key),
      });
      bookIncrement(this.state, inLifecycleCurrency(this.state, authorization, 'authorization'), key);
      this.stateChanged();
      return authorization;
    });
  }

  validateRefund(request: RefundInput): void {
    const fingerprint = this.fingerprint(request);
    if (!this.keyed.isKnown('refund', request.idempotencyKey, fingerprint))
      refundPlan(this.state, keyed(request), fingerprint);
  }

  /** Taken also after the lifecycle ended: its captures stay refundable for months. */
  refund(request: RefundInput): Promise<Refund> {
    const fingerprint = this.fingerprint(request);
    return this.once('refund', request.idempotencyKey, fingerprint, async () => {
      const plan = refundPlan(this.state, keyed(request), fingerprint);
      const { attempt, answer } = await this.attempt(plan, {
        send: (sending) => this.keyedCalls.refundCapture(sending.sent),
        find: (sent) => this.keyedCalls.findRefund(sent.sent),
      });
      const refund = inLifecycleCurrency(this.state, answer, 'refund');
      bookRefund(this.state, attempt, refund);
      this.awaitEvent('refund', refund);
      this.stateChanged();
      return refund;
    });
  }

  /** A verified provider event: applied, or recorded with why not. */
  recordEvent(event: PaymentEvent): void {
    const recorded = applyEvent(this.state, event, new Date().toISOString());
    eventArrived(this.state, event);
    if (!recorded.applied) log.info('payment event recorded, not applied', { ...recorded });
    this.stateChanged();
  }

  /**
   * A deadline's timer fired: reauthorize or apply the expiry policy, after any provider call running; or read
   * the provider for a movement whose event is overdue.
   */
  async deadlineReached(kind: TimerKind, input: LifecycleInput): Promise<void> {
    if (kind === 'close') return;
    if (kind === 'reconcile') {
      await this.reconcileOverdue(input);
      return;
    }
    await this.queue.run(() => fireTimer(this.state, kind, input));
    this.stateChanged();
  }

  /**
   * A movement the lifecycle made has had no event for its grace period: it reads its provider once and books
   * what it finds. A read that cannot be made within the timer calls' timeout is tried again after another
   * grace period (logged); any other error (a read the booking cannot take) fails the workflow task, where
   * operators see it, and the task is retried.
   */
  private async reconcileOverdue(input: LifecycleInput): Promise<void> {
    try {
      await this.reconcile('event-overdue', providerTimerCalls(input, this.state));
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      log.warn('reconciliation for an overdue event failed; reading again later', { error: String(error) });
      postponeOverdue(this.state, Date.now(), this.graceMs);
      this.stateChanged();
    }
  }

  /** An operator's reconciliation: refused while the run moves to a new one, like any command. */
  requestReconcile(): Promise<ReconcileSummary> {
    refuseWhileContinuing();
    return this.reconcile('request', this.keyedCalls);
  }

  /**
   * The reconciliation before the run closes, in an activity: the task that then closes the run stays short,
   * so an event arriving meanwhile seldom fails it (a local activity made that task as long as the read, and
   * the rolling deploy's events failed it). A provider that cannot be read within the timer calls' timeout
   * leaves the ledger as it is (logged); the run closes all the same. Any other error fails the workflow task,
   * and the run stays open until a fixed worker books the read.
   */
  async reconcileBeforeClose(input: LifecycleInput): Promise<void> {
    try {
      await this.reconcile('close', providerTimerCalls(input, this.state));
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      log.warn('reconciliation before close failed: the ledger stays as booked', { error: String(error) });
    }
  }

  /** Reads what the provider holds, after any provider call running, and books it. */
  private reconcile(reason: ReconcileReason, calls: PaymentsCalls): Promise<ReconcileSummary> {
    return this.queue.run(async () => {
      const holdings = await calls.readHoldings(holdingsRequestOf(this.state));
      const summary = bookHoldings(this.state, holdings, reason, new Date().toISOString());
      eventsRead(this.state);
      this.state.lastReconciliation = {
        at: summary.at,
        reason,
        booked: summary.booked.length,
        recorded: summary.recorded.length,
        ...(summary.resolved.length > 0 && { resolved: summary.resolved.length }),
      };
      if (summary.recorded.length > 0 || summary.resolved.length > 0) {
        await this.countDiscrepancies(reason, summary.recorded.length, summary.resolved.length);
      }
      this.stateChanged();
      return summary;
    });
  }

  /** On the worker's metrics endpoint; a count that cannot be made leaves the ledger as it is. */
  private async countDiscrepancies(reason: ReconcileReason, count: number, resolved: number): Promise<void> {
    try {
      await ledgerCalls.countLedgerDiscrepancies({ provider: this.state.provider, reason, count, resolved });
    } catch (error) {
      log.warn('ledger discrepancies not counted', { error: String(error), count, resolved });
    }
  }

  /** The event that settles a capture or refund the provider answered PENDING is awaited for the grace period. */
  private awaitEvent(kind: 'capture' | 'refund', answer: { id: string; status?: string }): void {
    awaitEvent(this.state, kind, answer, new Date().toISOString(), this.graceMs);
  }

  keyedAnswer(question: KeyedAnswerQuestion): KeyedAnswerLookup {
    return keyedAnswer(this.state, question);
  }

  /** Wakes the main loop and shows operators the new state. */
  private stateChanged(): void {
    this.changeCount += 1;
    setCurrentDetails(lifecycleDetails(this.state));
    this.visibility.show();
  }

  private fingerprint(request: CaptureInput | ReauthorizeInput | RefundInput): RequestFingerprint {
    return requestFingerprint(request, this.state.currency);
  }

  /**
   * A keyed provider call, recorded as pending until its answer comes: a success or a refusal ends it, a
   * call that got no answer leaves it for the retry under the same key. A retry once the provider may have
   * forgotten that key first reads what the call did: what it finds is the answer; only when the provider
   * holds nothing of it is the call sent again, under a fresh key; when the provider cannot tell, the retry
   * is refused and the attempt stays pending (an operator reconciles it).
   */
  private async attempt<Attempt extends PendingAttempt, T>(
    planned: Attempt,
    call: KeyedCall<Attempt, T>,
  ): Promise<{ attempt: Attempt; answer: T }> {
    let attempt = planned;
    if (keyMayBeForgotten(this.state, planned, Date.now())) {
      const finding = await call.find(planned);
      if ('unknown' in finding) {
        refuse(
          LifecycleFailure.stateForbids,
          `Idempotency-Key "${planned.idempotencyKey}": its ${planned.operation} was sent at ${planned.sentAt} and its answer lost; the provider keeps its key ${this.state.keyRetentionMs} ms and cannot tell what the call did (${finding.unknown}): not sent again`,
        );
      }
      if (finding.found) {
        endAttempt(this.state, planned);
        return { attempt: planned, answer: finding.found };
      }
      attempt = resentAttempt(planned);
    }
    beginAttempt(this.state, attempt);
    try {
      const answer = await call.send(attempt);
      endAttempt(this.state, attempt);
      return { attempt, answer };
    } catch (error) {
      if (isDefiniteFailure(error)) endAttempt(this.state, attempt);
      throw error;
    }
  }

  /**
   * The work once per key, one provider call at a time. A run that is to continue as new starts no new work,
   * so that its handlers finish and it can: the request fails as LifecycleFailure.runContinuing, and the client
   * sends it again, to the next run. (Refused here, in history, not by the validator: a rejected Update leaves
   * no event, and a task that only rejected one must not be the one that continues as new.)
   */
  private once<T>(
    operation: LifecycleOperation,
    idempotencyKey: string | undefined,
    request: RequestFingerprint,
    work: () => Promise<T>,
  ): Promise<T> {
    return this.keyed.once(operation, idempotencyKey, request, () => {
      refuseWhileContinuing();
      return this.queue.run(work);
    });
  }
}
