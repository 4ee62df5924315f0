import { log, proxyActivities, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import type { PaymentsActivities } from '../../activities/payments';
import type { Authorization, PaymentCapture, Refund } from '../../providers/resources';
import { ofProvider, orderSystemCalls, type PaymentsCalls } from './activity-options';
import type {
  CaptureInput,
  KeyedAnswerLookup,
  KeyedAnswerQuestion,
  LifecycleInput,
  LifecycleOperation,
  LifecycleState,
  PaymentEvent,
  PendingAttempt,
  ReauthorizeInput,
  RefundInput,
  RequestFingerprint,
  VoidInput,
} from './definitions';
import { beginAttempt, endAttempt, isDefiniteFailure } from './attempts';
import { KeyedRequests, keyedAnswer, requestFingerprint } from './idempotency';
import { captureIdempotencyKey, refundIdempotencyKey, voidIdempotencyKey } from './provider-keys';
import {
  applyCapture,
  applyEvent,
  applyRefund,
  markEnded,
  ownCapture,
  providerCaptureId,
  voidTarget,
} from './state';
import { fireTimer, reauthorize, type TimerKind } from './timers';
import { assertOpen, capturePlan, inLifecycleCurrency, reauthorizeAmount, refundPlan } from './validation';
import { lifecycleDetails, type LifecycleVisibility } from './visibility';

/** The no-op activity a keyed provider call waits on first (see LifecycleCommands.attempt). */
const { checkpoint } = proxyActivities<PaymentsActivities>({ startToCloseTimeout: '5 seconds' });

/**
 * Whether the next capture is the last the authorization takes: then it is final, so a provider that takes
 * one capture (Stripe without multicapture) is never asked to keep the rest.
 */
function lastCapture(state: LifecycleState): boolean {
  return state.captures.length + 1 >= state.maxCaptures;
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
  /** The provider's calls an order system waits on. */
  private readonly calls: PaymentsCalls;
  private changeCount = 0;

  constructor(
    private readonly state: LifecycleState,
    retentionMs: number,
    private readonly visibility: LifecycleVisibility,
  ) {
    this.keyed = new KeyedRequests(state, retentionMs);
    this.calls = ofProvider(orderSystemCalls, state.provider);
  }

  /** How many times the state changed: the main loop wakes when it moves. */
  get changes(): number {
    return this.changeCount;
  }

  validateCapture(request: CaptureInput): void {
    const fingerprint = this.fingerprint(request);
    if (!this.keyed.isKnown('capture', request.idempotencyKey, fingerprint))
      capturePlan(this.state, request, fingerprint);
  }

  capture(request: CaptureInput): Promise<PaymentCapture> {
    const fingerprint = this.fingerprint(request);
    const acceptedAt = workflowInfo().historyLength;
    return this.once('capture', request.idempotencyKey, fingerprint, async () => {
      const state = this.state;
      const plan = capturePlan(state, request, fingerprint);
      const amount = { currency_code: state.currency, value: plan.amount };
      state.captureSequence += 1;
      const idempotencyKey = plan.providerRequestId ?? captureIdempotencyKey(state, request.idempotencyKey);
      const finalCapture =
        request.finalCapture ??
        plan.finalCapture ??
        (plan.amount === state.remainingAmount || lastCapture(state));
      const capture = await this.attempt(
        acceptedAt,
        request.idempotencyKey
          ? {
              operation: 'capture',
              idempotencyKey: request.idempotencyKey,
              request: fingerprint,
              providerRequestId: idempotencyKey,
              amount,
              finalCapture,
            }
          : undefined,
        async () =>
          inLifecycleCurrency(
            state,
            await this.calls.captureAuthorization({
              authorizationId: state.currentAuthorizationId,
              amount,
              finalCapture,
              idempotencyKey,
              ...(request.invoiceId ? { invoiceId: request.invoiceId } : {}),
              ...(request.noteToPayer ? { noteToPayer: request.noteToPayer } : {}),
            }),
            'capture',
          ),
      );
      const own = ownCapture(state, capture);
      applyCapture(state, own, {
        amount,
        finalCapture,
        idempotencyKey,
        ...(own.id !== capture.id && { chargeId: capture.id }),
      });
      this.stateChanged();
      return own;
    });
  }

  validateVoid(request: VoidInput): void {
    if (!this.keyed.isKnown('void', request.idempotencyKey, {})) assertOpen(this.state, 'void');
  }

  void(request: VoidInput): Promise<Authorization | null> {
    return this.once('void', request.idempotencyKey, {}, async () => {
      assertOpen(this.state, 'void');
      // As at PayPal, a reauthorization cannot be voided itself: voiding the original voids both.
      const voided = await this.calls.voidAuthorization({
        authorizationId: voidTarget(this.state),
        idempotencyKey: voidIdempotencyKey(this.state),
      });
      markEnded(this.state, 'VOIDED');
      this.stateChanged();
      return voided;
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

  validateRefund(request: RefundInput): void {
    const fingerprint = this.fingerprint(request);
    if (!this.keyed.isKnown('refund', request.idempotencyKey, fingerprint))
      refundPlan(this.state, request, fingerprint);
  }

  /** Taken also after the lifecycle ended: its captures stay refundable for months. */
  refund(request: RefundInput): Promise<Refund> {
    const fingerprint = this.fingerprint(request);
    const acceptedAt = workflowInfo().historyLength;
    return this.once('refund', request.idempotencyKey, fingerprint, async () => {
      const state = this.state;
      const plan = refundPlan(state, request, fingerprint);
      const amount = { currency_code: state.currency, value: plan.amount };
      state.refundSequence = (state.refundSequence ?? 0) + 1;
      const idempotencyKey = plan.providerRequestId ?? refundIdempotencyKey(state, request);
      const refund = await this.attempt(
        acceptedAt,
        request.idempotencyKey
          ? {
              operation: 'refund',
              idempotencyKey: request.idempotencyKey,
              request: fingerprint,
              providerRequestId: idempotencyKey,
              amount,
              captureId: request.captureId,
            }
          : undefined,
        async () =>
          inLifecycleCurrency(
            state,
            await this.calls.refundCapture({
              captureId: providerCaptureId(state, request.captureId),
              amount,
              idempotencyKey,
              ...(request.invoiceId ? { invoiceId: request.invoiceId } : {}),
              ...(request.noteToPayer ? { noteToPayer: request.noteToPayer } : {}),
            }),
            'refund',
          ),
      );
      applyRefund(state, {
        id: refund.id,
        captureId: request.captureId,
        kind: 'refund',
        status: refund.status,
        amount: refund.amount
          ? { currency_code: refund.amount.currency_code, value: refund.amount.value }
          : amount,
        idempotencyKey,
        createTime: refund.create_time,
      });
      this.stateChanged();
      return refund;
    });
  }

  /** A verified provider event: applied, or recorded with why not. */
  recordEvent(event: PaymentEvent): void {
    const recorded = applyEvent(this.state, event, new Date().toISOString());
    if (!recorded.applied) log.info('payment event recorded, not applied', { ...recorded });
    this.stateChanged();
  }

  /** A deadline's timer fired: reauthorize or apply the expiry policy, after any provider call running. */
  async deadlineReached(kind: TimerKind, input: LifecycleInput): Promise<void> {
    await this.queue.run(() => fireTimer(this.state, kind, input));
    this.stateChanged();
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
   * A provider call, recorded as pending (for a keyed request) until its answer comes: a success or a
   * refusal ends it, a call that got no answer leaves it for the retry under the same key.
   */
  private async attempt<T>(
    acceptedAt: number,
    pending: PendingAttempt | undefined,
    call: () => Promise<T>,
  ): Promise<T> {
    if (!pending) return call();
    beginAttempt(this.state, pending);
    // The provider call is a local activity: run inside the workflow task that accepted the Update (the
    // history has not grown since), a worker that dies before that task completes loses the Update and its
    // attempt. Scheduling a no-op activity completes the task first (a timer would too, but fires up to a
    // second late), so the attempt is in history before the provider is called. An Update accepted by an
    // earlier task (it waited its turn) is in history already: its replay records the attempt again.
    if (workflowInfo().historyLength === acceptedAt) await checkpoint();
    try {
      const answer = await call();
      endAttempt(this.state, pending);
      return answer;
    } catch (error) {
      if (isDefiniteFailure(error)) endAttempt(this.state, pending);
      throw error;
    }
  }

  /** The work once per key, one provider call at a time. */
  private once<T>(
    operation: LifecycleOperation,
    idempotencyKey: string | undefined,
    request: RequestFingerprint,
    work: () => Promise<T>,
  ): Promise<T> {
    return this.keyed.once(operation, idempotencyKey, request, () => this.queue.run(work));
  }
}
