export { HISTORY_EVENTS_PER_RUN } from './run-length';
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { LifecycleCommands } from './commands';
import {
  captureUpdate,
  completeUpdate,
  incrementUpdate,
  keyedAnswerQuery,
  paymentEventSignal,
  reauthorizeUpdate,
  reconcileUpdate,
  refundUpdate,
  startedQuery,
  stateQuery,
  voidUpdate,
  type CaptureInput,
  type CompleteInput,
  type IncrementInput,
  type LifecycleInput,
  type LifecycleState,
  type ReauthorizeInput,
  type RefundInput,
  type VoidInput,
} from './definitions';
import { shouldContinueAsNew } from './run-length';
import { millisecondsOf, startState } from './start';
import { isTerminal } from './bookings';
import { DeadlineTimer, nextDeadline, nextTimerOf, sameDeadline, windowDeadline } from './timers';
import { assertDurationsWithinBounds } from './validation';
import { clearStartingStatus, LifecycleVisibility, lifecycleDetails } from './visibility';

/** The durable life of one payment authorization: capture, void, reauthorize, expiry, provider events. */
export async function authorizationLifecycle(input: LifecycleInput): Promise<LifecycleState> {
  // The queries answer null until the authorization has been read, so a caller can wait for the start (and
  // after a start that failed, which the caller then reads from the run).
  let started = input.carriedState ?? null;
  setHandler(stateQuery, () => started);
  setHandler(startedQuery, () => started && { state: started, startRequestId: input.startRequestId });
  // A run carried over continue-as-new had its input checked by the run that started the lifecycle.
  if (!input.carriedState) assertDurationsWithinBounds(input);
  const retention = millisecondsOf(input, 'idempotencyKeyRetention');
  const state = started ?? (await startState(workflowInfo().workflowId, input).catch(clearStartingStatus));
  started = state;
  const visibility = new LifecycleVisibility(state);
  const lifecycle = new LifecycleCommands(
    state,
    retention,
    visibility,
    millisecondsOf(input, 'eventGracePeriod'),
  );

  setHandler(paymentEventSignal, (event) => lifecycle.recordEvent(event));
  setHandler(captureUpdate, (request) => lifecycle.capture(request), {
    validator: (request: CaptureInput) => lifecycle.validateCapture(request),
  });
  setHandler(voidUpdate, (request) => lifecycle.void(request), {
    validator: (request: VoidInput) => lifecycle.validateVoid(request),
  });
  setHandler(completeUpdate, (request) => lifecycle.complete(request), {
    validator: (request: CompleteInput) => lifecycle.validateComplete(request),
  });
  setHandler(incrementUpdate, (request) => lifecycle.increment(request), {
    validator: (request: IncrementInput) => lifecycle.validateIncrement(request),
  });
  setHandler(reauthorizeUpdate, (request) => lifecycle.reauthorize(request), {
    validator: (request: ReauthorizeInput) => lifecycle.validateReauthorize(request),
  });
  setHandler(refundUpdate, (request) => lifecycle.refund(request), {
    validator: (request: RefundInput) => lifecycle.validateRefund(request),
  });
  setHandler(reconcileUpdate, () => lifecycle.requestReconcile());
  setHandler(keyedAnswerQuery, (question) => lifecycle.keyedAnswer(question));

  visibility.show();
  const timer = new DeadlineTimer();
  while (!isTerminal(state)) {
    const deadline = nextDeadline(state);
    state.nextTimer = nextTimerOf(state, deadline);
    setCurrentDetails(lifecycleDetails(state));
    const seen = lifecycle.changes;
    timer.arm(deadline);
    await condition(
      () => lifecycle.changes !== seen || isTerminal(state) || timer.hasFired || shouldContinueAsNew(),
    );
    const fired = timer.takeFired();
    if (fired) await lifecycle.deadlineReached(fired.kind, input);
    if (!isTerminal(state)) await continueAsNewIfSuggested(input, state);
  }
  await lateEventWindow(input, state, timer, lifecycle);
  // Once, as the run closes after its late-event window: what the provider holds that no event brought is
  // booked. A lifecycle that closes as it ends (a window of 0) is not read: the provider's events of its last
  // command arrive as it closes, and would fail the task that closes it; an operator reconciles it on request.
  if (millisecondsOf(input, 'lateEventWindow') > 0) await lifecycle.reconcileBeforeClose(input);
  state.nextTimer = undefined;
  state.closesAt = undefined;
  await condition(allHandlersFinished);
  return state;
}

/**
 * Events about an ended authorization still arrive: the capture that ended it, refunds, redeliveries. The
 * run stays open for the late-event window, on the same timer: its close, or before it a read of the provider
 * for a movement whose event is overdue (a refund made in the window, the capture that ended it).
 */
async function lateEventWindow(
  input: LifecycleInput,
  state: LifecycleState,
  timer: DeadlineTimer,
  lifecycle: LifecycleCommands,
): Promise<void> {
  // A run carried over continue-as-new keeps the close its predecessor set.
  state.closesAt ??= new Date(Date.now() + millisecondsOf(input, 'lateEventWindow')).toISOString();
  const closeAt = Date.parse(state.closesAt);
  if (closeAt <= Date.now()) {
    state.nextTimer = { kind: 'close', at: state.closesAt };
    setCurrentDetails(lifecycleDetails(state));
    return;
  }
  for (;;) {
    const deadline = windowDeadline(state, closeAt);
    state.nextTimer = nextTimerOf(state, deadline);
    setCurrentDetails(lifecycleDetails(state));
    timer.arm(deadline);
    await condition(
      () =>
        timer.hasFired || shouldContinueAsNew() || !sameDeadline(windowDeadline(state, closeAt), deadline),
    );
    const fired = timer.takeFired();
    if (fired?.kind === 'close') return;
    if (fired) await lifecycle.deadlineReached(fired.kind, input);
    await continueAsNewIfSuggested(input, state);
  }
}

/** When it should, lets running handlers finish and carries the state into a new run. */
async function continueAsNewIfSuggested(input: LifecycleInput, state: LifecycleState): Promise<void> {
  if (!shouldContinueAsNew()) return;
  await condition(allHandlersFinished);
  await continueAsNew<typeof authorizationLifecycle>({ ...input, carriedState: state });
}
