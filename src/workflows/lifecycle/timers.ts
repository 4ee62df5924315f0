import { CancellationScope, isCancellation, log, sleep } from '@temporalio/workflow';
import type { Authorization } from '../../providers/resources';
import { ofProvider, timerCalls, type PaymentsCalls } from './activity-options';
import type { LifecycleInput, LifecycleState } from './definitions';
import { expiryCaptureKey, reauthorizeIdempotencyKey, voidRequest } from './keyed-requests';
import { millisecondsOf } from './start';
import { overdueAt } from './awaited-events';
import { amountOf, minorUnitsOf } from './money';
import type { TimerRun } from '../../providers/movements';
import { isTerminal } from './bookings';
import { applyReauthorization, bookCapture, markEnded } from './state';
import { inLifecycleCurrency, unansweredCapture } from './validation';

export type TimerKind = 'reauthorize' | 'expiryPolicy' | 'reconcile' | 'close';
export type Deadline = { kind: TimerKind; at: number };

/**
 * The open lifecycle's next deadline: the reauthorization, unless the expiry policy comes first, unless a
 * movement it made has waited for its event longer than its grace period before either (awaited-events.ts).
 */
export function nextDeadline(state: LifecycleState): Deadline {
  return earlierReconcile(state, holdDeadline(state));
}

/** What the open lifecycle does before its hold ends: the reauthorization, unless the expiry policy comes first. */
export function holdDeadline(state: LifecycleState): Deadline {
  const expiry = Date.parse(state.expiryPolicyAt);
  const reauthorize = state.reauthorizeAt ? Date.parse(state.reauthorizeAt) : undefined;
  return reauthorize !== undefined && reauthorize < expiry
    ? { kind: 'reauthorize', at: reauthorize }
    : { kind: 'expiryPolicy', at: expiry };
}

/** The ended lifecycle's next deadline in its late-event window: its close, or a read for an overdue event. */
export function windowDeadline(state: LifecycleState, closeAt: number): Deadline {
  return earlierReconcile(state, { kind: 'close', at: closeAt });
}

/** The deadline as the state shows it; a hold's timer says why it runs then. */
export function nextTimerOf(
  state: LifecycleState,
  deadline: Deadline,
): NonNullable<LifecycleState['nextTimer']> {
  const at = new Date(deadline.at).toISOString();
  const why =
    deadline.kind === 'reauthorize' || deadline.kind === 'expiryPolicy'
      ? state.deadlineReasons[deadline.kind]
      : undefined;
  return { kind: deadline.kind, at, ...(why && { why }) };
}

export function sameDeadline(a: Deadline, b: Deadline): boolean {
  return a.kind === b.kind && a.at === b.at;
}

function earlierReconcile(state: LifecycleState, deadline: Deadline): Deadline {
  const reconcileAt = overdueAt(state);
  return reconcileAt !== undefined && reconcileAt < deadline.at
    ? { kind: 'reconcile', at: reconcileAt }
    : deadline;
}

/**
 * One durable timer per deadline: a state change that keeps the deadline keeps its timer (no TimerCanceled
 * and TimerStarted per change); a new deadline starts one. A timer the new deadline comes before keeps running,
 * parked: when the earlier deadline goes again (an awaited event arrived, or its read was made), the parked
 * timer serves again and nothing is restarted. A timer that would fire before the new deadline is canceled; one
 * still parked when the run ends ends with it, uncanceled.
 */
export class DeadlineTimer {
  private readonly running = new Map<string, { deadline: Deadline; scope: CancellationScope }>();
  private current?: string;
  private firedDeadline?: Deadline;

  arm(deadline: Deadline): void {
    const key = keyOf(deadline);
    if (this.current === key) return;
    for (const [other, timer] of this.running) {
      if (other !== key && timer.deadline.at < deadline.at) {
        timer.scope.cancel();
        this.running.delete(other);
      }
    }
    this.current = key;
    if (this.running.has(key)) return;
    const scope = new CancellationScope();
    this.running.set(key, { deadline, scope });
    scope
      .run(() => sleep(Math.max(deadline.at - Date.now(), 1)))
      .then(
        () => {
          if (this.running.get(key)?.scope !== scope) return;
          this.running.delete(key);
          if (this.current === key) {
            this.current = undefined;
            this.firedDeadline = deadline;
          }
        },
        (error: unknown) => {
          if (!isCancellation(error)) throw error;
        },
      );
  }

  /** The deadline whose timer fired, once. */
  takeFired(): Deadline | undefined {
    const fired = this.firedDeadline;
    this.firedDeadline = undefined;
    return fired;
  }

  get hasFired(): boolean {
    return this.firedDeadline !== undefined;
  }
}

function keyOf(deadline: Deadline): string {
  return `${deadline.at}:${deadline.kind}`;
}

export async function reauthorize(
  state: LifecycleState,
  calls: PaymentsCalls,
  total: string,
  reason: 'timer' | 'request',
  idempotencyKey?: string,
): Promise<Authorization> {
  const authorization = await calls.reauthorizeAuthorization({
    authorizationId: state.currentAuthorizationId,
    amount: { currency_code: state.currency, value: total },
    idempotencyKey: reauthorizeIdempotencyKey(state, reason, idempotencyKey),
    ...(state.extendedAuthorization && { extendedAuthorization: true }),
  });
  inLifecycleCurrency(state, authorization, 'authorization');
  applyReauthorization(state, authorization, reason, new Date().toISOString());
  return authorization;
}

/** The provider's calls nobody waits on, retried for the lifecycle's `timerCallTimeout`. */
export function providerTimerCalls(input: LifecycleInput, state: LifecycleState): PaymentsCalls {
  return ofProvider(timerCalls(millisecondsOf(input, 'timerCallTimeout')), state.provider);
}

/**
 * What a hold's deadline does: reauthorize what remains, or apply the expiry policy. Each run is in the ledger
 * (`timerRuns`), with why it ran then and what it did.
 */
export async function fireTimer(
  state: LifecycleState,
  kind: 'reauthorize' | 'expiryPolicy',
  input: LifecycleInput,
  calls: PaymentsCalls = providerTimerCalls(input, state),
): Promise<void> {
  if (isTerminal(state)) return;
  const at = new Date().toISOString();
  const why = state.deadlineReasons[kind] ?? '';
  const run =
    kind === 'reauthorize' ? await runReauthorization(state, calls) : await runExpiryPolicy(state, calls);
  (state.ledger.timerRuns ??= []).push({ timer: kind, at, why, ...run });
}

type RunOutcome = Pick<TimerRun, 'outcome' | 'reference' | 'failure'>;

async function runReauthorization(state: LifecycleState, calls: PaymentsCalls): Promise<RunOutcome> {
  const remaining = amountOf(state, minorUnitsOf(state, state.remainingAmount) ?? 0n).value;
  try {
    const authorization = await reauthorize(state, calls, remaining, 'timer');
    state.reauthorizationFailure = undefined;
    return { outcome: 'reauthorized', reference: authorization.id };
  } catch (error) {
    // A refused or timed-out reauthorization leaves the current authorization in place until the expiry
    // policy; operators find it by the ReauthorizationFailure search attribute.
    log.warn('scheduled reauthorization failed', { error: String(error) });
    state.reauthorizeAt = undefined;
    state.reauthorizationFailure = { at: new Date().toISOString(), reason: failureReason(error) };
    return { outcome: 'failed', failure: state.reauthorizationFailure.reason };
  }
}

/** The policy's capture or void; when it fails, the hold is let expire, and the ledger says why. */
async function runExpiryPolicy(state: LifecycleState, calls: PaymentsCalls): Promise<RunOutcome> {
  let failure: string | undefined;
  if (state.expiryPolicy === 'capture') {
    // Not while a capture sent earlier has no answer: what remains at the provider is then unknown, and
    // capturing it could take more than the payer gave.
    const unanswered = unansweredCapture(state);
    if (unanswered) failure = `capture: the capture under key ${unanswered.idempotencyKey} has no answer`;
    else {
      try {
        return { outcome: 'captured', reference: await captureRest(state, calls) };
      } catch (error) {
        failure = `capture: ${failureReason(error)}`;
      }
    }
  }
  if (state.expiryPolicy === 'void') {
    try {
      const request = voidRequest(state);
      await calls.voidAuthorization(request);
      markEnded(state, 'VOIDED');
      return { outcome: 'voided', reference: request.authorizationId };
    } catch (error) {
      failure = `void: ${failureReason(error)}`;
    }
  }
  markEnded(state, 'EXPIRED');
  return { outcome: 'expired', ...(failure && { failure }) };
}

/** The expiry policy `capture`: what remains of the current hold, as its last capture, under the lifecycle's own key. */
async function captureRest(state: LifecycleState, calls: PaymentsCalls): Promise<string> {
  const sent = {
    authorizationId: state.currentAuthorizationId,
    amount: { currency_code: state.currency, value: state.remainingAmount },
    finalCapture: true,
    idempotencyKey: expiryCaptureKey(state),
  };
  const answer = await calls.captureAuthorization(sent);
  bookCapture(state, sent, inLifecycleCurrency(state, answer, 'capture'));
  return answer.id;
}

/** The provider's issue, or how the call failed (e.g. it timed out after retrying). */
function failureReason(error: unknown): string {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const type = (cause as { type?: unknown }).type;
    if (typeof type === 'string' && type) return type;
    if (cause.name === 'TimeoutFailure') return 'TIMEOUT';
  }
  return 'FAILED';
}
