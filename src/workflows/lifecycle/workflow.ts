import {
  allHandlersFinished,
  condition,
  log,
  patched,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { PaymentCapture } from '../../payments/schemas';
import { orderSystemCalls } from './activity-options';
import { continueAsNewIfSuggested, shouldContinueAsNew } from './continue-as-new';
import {
  captureUpdate,
  paymentEventSignal,
  reauthorizeUpdate,
  refundUpdate,
  requestFingerprint,
  startedUpdate,
  stateQuery,
  voidUpdate,
  type CaptureInput,
  type LifecycleInput,
  type LifecycleState,
  type ReauthorizeInput,
  type RefundInput,
  type VoidInput,
} from './definitions';
import { lifecycleDetails } from './details';
import { defaults, millisecondsOf } from './durations';
import { KeyedRequests, SerialQueue } from './idempotency';
import { voidRequestId } from './request-ids';
import { applyCapture, applyEvent, applyRefund, isTerminal, markEnded } from './state';
import { carriedOver, startState } from './start';
import { DeadlineTimer, fireTimer, nextDeadline, reauthorize, type Deadline } from './timers';
import {
  assertDurationsWithinBounds,
  assertOpen,
  capturePlan,
  reauthorizeAmount,
  refundPlan,
} from './validation';
import { LifecycleVisibility } from './visibility';

/** The durable life of one payment authorization: capture, void, reauthorize, expiry, provider events. */
export async function authorizationLifecycle(input: LifecycleInput): Promise<LifecycleState> {
  // A run carried over continue-as-new had its input checked by the run that started the lifecycle.
  if (!input.carriedState) assertDurationsWithinBounds(input);
  const workflowId = workflowInfo().workflowId;
  const retention = millisecondsOf(input.idempotencyKeyRetention, defaults.idempotencyKeyRetention);
  // The query answers null until the authorization has been read, so a caller can wait for the start.
  let started = input.carriedState ? carriedOver(input.carriedState, retention, Date.now()) : null;
  setHandler(stateQuery, () => started);
  setHandler(startedUpdate, async () => {
    await condition(() => started !== null);
    return { state: started as LifecycleState, startRequestId: input.startRequestId };
  });
  const state = started ?? (await startState(workflowId, input));
  started = state;
  const queue = new SerialQueue();
  const keyed = new KeyedRequests(state, retention, queue);
  // One patch for the history diet: one upsert at start, one timer per deadline. A run that has it also has
  // every older change, so it asks no older patch (each patch costs a marker and an upsert in history).
  const fewerEvents = patched('fewer-history-events');
  const visibility = new LifecycleVisibility(state, !fewerEvents);

  let changes = 0;
  /** Wakes the main loop and shows operators the new state. */
  const stateChanged = () => {
    changes += 1;
    setCurrentDetails(lifecycleDetails(state));
    visibility.show();
  };

  setHandler(paymentEventSignal, (event) => {
    const recorded = applyEvent(state, event, new Date().toISOString());
    if (!recorded.applied) log.info('payment event recorded, not applied', { ...recorded });
    stateChanged();
  });

  const fingerprint = (request: CaptureInput | ReauthorizeInput | RefundInput) =>
    requestFingerprint(request, state.currency);

  setHandler(
    captureUpdate,
    (request) =>
      keyed.once('capture', request.idempotencyKey, fingerprint(request), async () => {
        const plan = capturePlan(state, request);
        const amount = { currency_code: state.currency, value: plan.amount };
        state.captureSequence += 1;
        const requestId = request.idempotencyKey
          ? `${state.authorizationId}-${request.idempotencyKey}`
          : `${workflowId}-capture-${state.captureSequence}`;
        const finalCapture =
          request.finalCapture ?? plan.finalCapture ?? plan.amount === state.remainingAmount;
        const capture: PaymentCapture = await orderSystemCalls.captureAuthorization({
          authorizationId: state.currentAuthorizationId,
          requestId,
          request: {
            amount,
            final_capture: finalCapture,
            ...(request.invoiceId ? { invoice_id: request.invoiceId } : {}),
            ...(request.noteToPayer ? { note_to_payer: request.noteToPayer } : {}),
          },
        });
        applyCapture(state, capture, { amount, finalCapture, requestId });
        stateChanged();
        return capture;
      }),
    {
      validator: (request: CaptureInput) => {
        if (!keyed.isKnown('capture', request.idempotencyKey, fingerprint(request)))
          capturePlan(state, request);
      },
    },
  );

  setHandler(
    voidUpdate,
    (request) =>
      keyed.once('void', request.idempotencyKey, {}, async () => {
        assertOpen(state, 'void');
        // As at PayPal, a reauthorization cannot be voided itself: voiding the original voids both.
        const voided = await orderSystemCalls.voidAuthorization(state.authorizationId, voidRequestId(state));
        markEnded(state, 'VOIDED');
        stateChanged();
        return voided;
      }),
    {
      validator: (request: VoidInput) => {
        if (!keyed.isKnown('void', request.idempotencyKey, {})) assertOpen(state, 'void');
      },
    },
  );

  setHandler(
    reauthorizeUpdate,
    (request) =>
      keyed.once('reauthorize', request.idempotencyKey, fingerprint(request), async () => {
        const total = reauthorizeAmount(state, request);
        const authorization = await reauthorize(
          state,
          orderSystemCalls,
          total,
          'request',
          request.idempotencyKey,
        );
        stateChanged();
        return authorization;
      }),
    {
      validator: (request: ReauthorizeInput) => {
        if (!keyed.isKnown('reauthorize', request.idempotencyKey, fingerprint(request)))
          reauthorizeAmount(state, request);
      },
    },
  );

  // Refunds are taken also after the lifecycle ended: its captures stay refundable for months.
  setHandler(
    refundUpdate,
    (request) =>
      keyed.once('refund', request.idempotencyKey, fingerprint(request), async () => {
        const plan = refundPlan(state, request);
        const amount = { currency_code: state.currency, value: plan.amount };
        state.refundSequence = (state.refundSequence ?? 0) + 1;
        const requestId = request.idempotencyKey
          ? `${request.captureId}-${request.idempotencyKey}`
          : `${workflowId}-refund-${state.refundSequence}`;
        const refund = await orderSystemCalls.refundCapture({
          captureId: request.captureId,
          requestId,
          request: {
            amount,
            ...(request.invoiceId ? { invoice_id: request.invoiceId } : {}),
            ...(request.noteToPayer ? { note_to_payer: request.noteToPayer } : {}),
          },
        });
        applyRefund(state, {
          id: refund.id,
          captureId: request.captureId,
          kind: 'refund',
          status: refund.status,
          amount: refund.amount
            ? { currency_code: refund.amount.currency_code, value: refund.amount.value }
            : amount,
          requestId,
          createTime: refund.create_time,
        });
        stateChanged();
        return refund;
      }),
    {
      validator: (request: RefundInput) => {
        if (!keyed.isKnown('refund', request.idempotencyKey, fingerprint(request)))
          refundPlan(state, request);
      },
    },
  );

  if (fewerEvents) visibility.show(visibility.identity());
  else {
    upsertSearchAttributes(visibility.identity());
    visibility.show();
  }
  const timer = new DeadlineTimer();
  while (!isTerminal(state)) {
    const deadline = nextDeadline(state);
    state.nextTimer = { kind: deadline.kind, at: new Date(deadline.at).toISOString() };
    setCurrentDetails(lifecycleDetails(state));
    const seen = changes;
    let fired: Deadline | undefined;
    if (fewerEvents) {
      timer.arm(deadline);
      await condition(() => changes !== seen || isTerminal(state) || timer.hasFired || shouldContinueAsNew());
      fired = timer.takeFired();
    } else {
      const changed = await condition(
        () => changes !== seen || isTerminal(state),
        Math.max(deadline.at - Date.now(), 1),
      );
      fired = changed ? undefined : deadline;
    }
    if (fired) {
      const kind = fired.kind;
      await queue.run(() => fireTimer(state, kind, input));
      stateChanged();
    }
    if (!isTerminal(state)) await continueAsNewIfSuggested(input, state);
  }
  timer.cancel();
  if (fewerEvents || patched('late-event-window')) await lateEventWindow(input, state);
  state.nextTimer = undefined;
  await condition(allHandlersFinished);
  return state;
}

/**
 * Events about an ended authorization still arrive: the capture that ended it, refunds, redeliveries. The
 * run stays open for the late-event window. Runs recorded before this window existed ended at once.
 */
async function lateEventWindow(input: LifecycleInput, state: LifecycleState): Promise<void> {
  if (state.nextTimer?.kind !== 'close') {
    const window = millisecondsOf(input.lateEventWindow, defaults.lateEventWindow);
    state.nextTimer = { kind: 'close', at: new Date(Date.now() + window).toISOString() };
  }
  setCurrentDetails(lifecycleDetails(state));
  const closeAt = Date.parse(state.nextTimer.at);
  if (closeAt <= Date.now()) return;
  await condition(shouldContinueAsNew, closeAt - Date.now());
  await continueAsNewIfSuggested(input, state);
}
