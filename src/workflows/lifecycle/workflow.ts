import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  currentUpdateInfo,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { msToNumber } from '@temporalio/common/lib/time';
import type { PaymentsActivities } from '../../activities/payments';
import type { Authorization, PaymentCapture } from '../../payments/schemas';
import { AuthorizationIdKey, AuthorizationIdsKey, OrderIdKey, PaymentStatusKey } from '../search-attributes';
import {
  LifecycleFailure,
  captureUpdate,
  paymentEventSignal,
  reauthorizeUpdate,
  startedUpdate,
  stateQuery,
  voidUpdate,
  type CaptureInput,
  type LifecycleInput,
  type LifecycleState,
  type ReauthorizeInput,
} from './definitions';
import {
  applyCapture,
  applyEvent,
  applyReauthorization,
  canManage,
  initialState,
  isTerminal,
  markEnded,
  minor,
  money,
  rememberAnswer,
} from './state';

const DAY = 24 * 60 * 60 * 1000;
const DEFAULT_REAUTHORIZE_AFTER = 3 * DAY;
const DEFAULT_EXPIRY_POLICY_AFTER = 29 * DAY - 60 * 60 * 1000;
// PayPal redelivers an unacknowledged webhook for up to 3 days.
const DEFAULT_LATE_EVENT_WINDOW = 3 * DAY;

// Calls an order system waits on run as local activities: no extra round trip through the server, so a
// capture answers about as fast as the provider does. A few quick retries, then the Update fails retryably
// and the caller repeats it with the same idempotency key.
const requested = proxyLocalActivities<PaymentsActivities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '500 ms',
    backoffCoefficient: 2,
    maximumInterval: '5 seconds',
    maximumAttempts: 5,
  },
});
// Calls nobody waits on (timers): retry until the provider answers.
const scheduled = proxyActivities<PaymentsActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

function refuse(type: string, message: string): never {
  throw ApplicationFailure.create({ type, message, nonRetryable: true });
}

/** One provider call at a time, so a timer's reauthorization never races a capture. */
class Serial {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.tail.then(work, work);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/** The durable life of one payment authorization: capture, void, reauthorize, expiry, provider events. */
export async function authorizationLifecycle(input: LifecycleInput): Promise<LifecycleState> {
  const workflowId = workflowInfo().workflowId;
  // The query answers null until the authorization has been read, so a caller can wait for the start.
  let started: LifecycleState | null = input.carriedState ?? null;
  setHandler(stateQuery, () => started);
  setHandler(startedUpdate, async () => {
    await condition(() => started !== null);
    return { state: started as LifecycleState, startRequestId: input.startRequestId };
  });
  const state = started ?? (await startState(workflowId, input));
  started = state;
  const serial = new Serial();
  let changes = 0;

  let published = '';
  /** Wakes the main loop; tells visibility only what changed (each upsert is a history event and a write). */
  const publish = () => {
    changes += 1;
    const heldIds = heldAuthorizationIds(state);
    const next = [state.status, ...heldIds].join(' ');
    // Runs recorded before this check upserted on every change; they replay that way.
    if (next === published && patched('publish-only-changes')) return;
    published = next;
    upsertSearchAttributes([
      { key: PaymentStatusKey, value: state.status },
      { key: AuthorizationIdsKey, value: heldIds },
    ]);
  };
  upsertSearchAttributes([
    { key: AuthorizationIdKey, value: state.authorizationId },
    ...(state.orderId ? [{ key: OrderIdKey, value: state.orderId }] : []),
  ]);

  setHandler(paymentEventSignal, (event) => {
    const recorded = applyEvent(state, event, new Date().toISOString());
    if (!recorded.applied) log.info('payment event recorded, not applied', { ...recorded });
    publish();
  });

  /** The answer to a key already answered, or the work's answer remembered under the key. */
  const once = async <T>(work: () => Promise<T>): Promise<T> => {
    const key = currentUpdateInfo()?.id;
    if (key && key in state.answeredKeys) return state.answeredKeys[key] as T;
    const answer = await serial.run(work);
    if (key) rememberAnswer(state, key, answer);
    return answer;
  };
  /** A key already answered passes validation whatever the state now: `once` gives it the first answer. */
  const unlessAnswered =
    <I>(check: (request: I) => void) =>
    (request: I) => {
      const key = currentUpdateInfo()?.id;
      if (!(key && key in state.answeredKeys)) check(request);
    };

  /**
   * A capture the lifecycle learned of from the provider's webhook only, when the request that made it never
   * got its answer (e.g. the history service restarted meanwhile). A retry of that request, with its key,
   * is asked of the provider again under the same request id; the provider answers the first capture.
   */
  const unclaimedCapture = (key: string | undefined) =>
    key && state.status === 'CAPTURED' ? state.captures.find((capture) => !capture.requestId) : undefined;
  const captureRequestId = (key: string | undefined) =>
    key ? `${state.authorizationId}-${key}` : `${workflowId}-capture-${state.captureSequence}`;

  setHandler(
    captureUpdate,
    (request) =>
      once(async () => {
        const unclaimed = unclaimedCapture(request.idempotencyKey);
        if (unclaimed) {
          const requestId = captureRequestId(request.idempotencyKey);
          // Another request's id is refused by the provider (already captured): the usual refusal then.
          const capture: PaymentCapture | undefined = await requested
            .captureAuthorization({
              authorizationId: unclaimed.authorizationId,
              requestId,
              request: { amount: unclaimed.amount, final_capture: unclaimed.finalCapture },
            })
            .catch(() => undefined);
          const claimed = state.captures.find((known) => known.id === capture?.id && !known.requestId);
          if (!capture || !claimed) {
            refuse(LifecycleFailure.stateForbids, `cannot capture: the lifecycle is ${state.status}`);
          }
          claimed.requestId = requestId;
          publish();
          return capture;
        }
        // Normalized to the authorization's scale: "5" becomes "5.00".
        const amount = money(state, minor(state, captureAmount(state, request)) ?? 0);
        state.captureSequence += 1;
        const requestId = captureRequestId(request.idempotencyKey);
        const finalCapture = request.finalCapture ?? amount.value === state.remainingAmount;
        const capture: PaymentCapture = await requested.captureAuthorization({
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
        publish();
        return capture;
      }),
    {
      validator: unlessAnswered((request: CaptureInput) => {
        if (!unclaimedCapture(request.idempotencyKey)) void captureAmount(state, request);
      }),
    },
  );

  setHandler(
    voidUpdate,
    (_request) =>
      once(async () => {
        assertOpen(state, 'void');
        // As at PayPal, a reauthorization cannot be voided itself: voiding the original voids both.
        const voided = await requested.voidAuthorization(state.authorizationId);
        markEnded(state, 'VOIDED');
        publish();
        return voided;
      }),
    { validator: unlessAnswered(() => assertOpen(state, 'void')) },
  );

  setHandler(
    reauthorizeUpdate,
    (request) =>
      once(async () => {
        const authorization = await reauthorize(
          state,
          requested,
          reauthorizeAmount(state, request),
          'request',
        );
        publish();
        return authorization;
      }),
    { validator: unlessAnswered((request: ReauthorizeInput) => void reauthorizeAmount(state, request)) },
  );

  publish();
  while (!isTerminal(state)) {
    const timer = nextTimer(state);
    state.nextTimer = { kind: timer.kind, at: new Date(timer.at).toISOString() };
    const seen = changes;
    const changed = await condition(
      () => changes !== seen || isTerminal(state),
      Math.max(timer.at - Date.now(), 1),
    );
    if (!changed) {
      await serial.run(() => fireTimer(state, timer.kind));
      publish();
    }
    if (workflowInfo().continueAsNewSuggested && !isTerminal(state)) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof authorizationLifecycle>({ ...input, carriedState: state });
    }
  }
  // Events about an ended authorization still arrive: the capture that ended it, refunds, redeliveries.
  // Runs recorded before this window existed ended at once; they replay without it.
  if (patched('late-event-window')) {
    if (state.nextTimer?.kind !== 'close') {
      const lateEventWindow =
        input.lateEventWindow === undefined ? DEFAULT_LATE_EVENT_WINDOW : msToNumber(input.lateEventWindow);
      state.nextTimer = { kind: 'close', at: new Date(Date.now() + lateEventWindow).toISOString() };
    }
    const closeAt = Date.parse(state.nextTimer.at);
    if (closeAt > Date.now()) {
      await condition(() => workflowInfo().continueAsNewSuggested, closeAt - Date.now());
      if (workflowInfo().continueAsNewSuggested) {
        await condition(allHandlersFinished);
        await continueAsNew<typeof authorizationLifecycle>({ ...input, carriedState: state });
      }
    }
  }
  state.nextTimer = undefined;
  await condition(allHandlersFinished);
  return state;
}

async function startState(workflowId: string, input: LifecycleInput): Promise<LifecycleState> {
  const authorization = await scheduled.getAuthorization(input.authorizationId);
  if (!canManage(authorization)) {
    refuse(
      LifecycleFailure.notManageable,
      `authorization ${authorization.id} is ${authorization.status}; only CREATED, PENDING or PARTIALLY_CAPTURED can be managed`,
    );
  }
  const made = authorization.create_time ? Date.parse(authorization.create_time) : Date.now();
  const reauthorizeAfter = input.reauthorizeAfter
    ? msToNumber(input.reauthorizeAfter)
    : DEFAULT_REAUTHORIZE_AFTER;
  const expiryAfter = input.expiryPolicyAfter
    ? msToNumber(input.expiryPolicyAfter)
    : DEFAULT_EXPIRY_POLICY_AFTER;
  return initialState(
    workflowId,
    authorization,
    { orderId: input.orderId, expiryPolicy: input.expiryPolicy ?? 'void' },
    {
      createTime: new Date(made).toISOString(),
      reauthorizeAt: new Date(made + reauthorizeAfter).toISOString(),
      expiryPolicyAt: new Date(made + expiryAfter).toISOString(),
    },
  );
}

function heldAuthorizationIds(state: LifecycleState): string[] {
  return [state.authorizationId, ...state.reauthorizations.map((record) => record.toAuthorizationId)];
}

function nextTimer(state: LifecycleState): { kind: 'reauthorize' | 'expiryPolicy'; at: number } {
  const expiry = Date.parse(state.expiryPolicyAt);
  const reauthorize = state.reauthorizeAt ? Date.parse(state.reauthorizeAt) : undefined;
  return reauthorize !== undefined && reauthorize < expiry
    ? { kind: 'reauthorize', at: reauthorize }
    : { kind: 'expiryPolicy', at: expiry };
}

async function fireTimer(state: LifecycleState, kind: 'reauthorize' | 'expiryPolicy'): Promise<void> {
  if (isTerminal(state)) return;
  if (kind === 'reauthorize') {
    try {
      await reauthorize(
        state,
        scheduled,
        money(state, minor(state, state.remainingAmount) ?? 0).value,
        'timer',
      );
    } catch (error) {
      // A refused reauthorization leaves the current authorization in place until the expiry policy.
      log.warn('scheduled reauthorization refused', { error: String(error) });
      state.reauthorizeAt = undefined;
    }
    return;
  }
  if (state.expiryPolicy === 'void') {
    try {
      await scheduled.voidAuthorization(state.authorizationId);
      markEnded(state, 'VOIDED');
      return;
    } catch (error) {
      log.warn('void before expiry refused; marking the lifecycle expired', { error: String(error) });
    }
  }
  markEnded(state, 'EXPIRED');
}

async function reauthorize(
  state: LifecycleState,
  activities: typeof requested,
  total: string,
  reason: 'timer' | 'request',
): Promise<Authorization> {
  const authorization = await activities.reauthorizeAuthorization({
    authorizationId: state.currentAuthorizationId,
    amount: { currency: state.currency, total },
  });
  applyReauthorization(state, authorization, reason, new Date().toISOString());
  return authorization;
}

function assertOpen(state: LifecycleState, what: string): void {
  if (isTerminal(state))
    refuse(LifecycleFailure.stateForbids, `cannot ${what}: the lifecycle is ${state.status}`);
}

/** Minor units of a requested amount; an amount that is not positive in the lifecycle's currency is refused. */
function positiveAmount(state: LifecycleState, amount: string): number {
  const wanted = minor(state, amount);
  if (wanted === undefined || wanted <= 0) {
    refuse(
      LifecycleFailure.invalidRequest,
      `amount: "${amount}" is not a positive amount in ${state.currency}`,
    );
  }
  return wanted;
}

/** The amount to capture, validated against what remains; throws before anything enters history. */
function captureAmount(state: LifecycleState, request: CaptureInput): string {
  assertOpen(state, 'capture');
  const remaining = minor(state, state.remainingAmount) ?? 0;
  if (remaining === 0) refuse(LifecycleFailure.stateForbids, 'cannot capture: nothing remains to capture');
  if (request.amount === undefined) return state.remainingAmount;
  if (positiveAmount(state, request.amount) > remaining) {
    refuse(
      LifecycleFailure.stateForbids,
      `amount: ${request.amount} ${state.currency} is more than the ${state.remainingAmount} that remains`,
    );
  }
  return request.amount;
}

function reauthorizeAmount(state: LifecycleState, request: ReauthorizeInput): string {
  assertOpen(state, 'reauthorize');
  if (request.amount === undefined) return state.remainingAmount;
  positiveAmount(state, request.amount);
  return request.amount;
}
