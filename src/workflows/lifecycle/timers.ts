import { CancellationScope, isCancellation, log, sleep } from '@temporalio/workflow';
import type { Authorization } from '../../providers/resources';
import { ofProvider, timerCalls, type PaymentsCalls } from './activity-options';
import type { LifecycleInput, LifecycleState } from './definitions';
import { reauthorizeIdempotencyKey, voidIdempotencyKey } from './keyed-requests';
import { millisecondsOf } from './start';
import { amountOf, minorUnitsOf } from './money';
import { applyReauthorization, isTerminal, markEnded, voidTarget } from './state';
import { inLifecycleCurrency } from './validation';

export type TimerKind = 'reauthorize' | 'expiryPolicy';
export type Deadline = { kind: TimerKind; at: number };

/** The lifecycle's next deadline: the reauthorization, unless the expiry policy comes first. */
export function nextDeadline(state: LifecycleState): Deadline {
  const expiry = Date.parse(state.expiryPolicyAt);
  const reauthorize = state.reauthorizeAt ? Date.parse(state.reauthorizeAt) : undefined;
  return reauthorize !== undefined && reauthorize < expiry
    ? { kind: 'reauthorize', at: reauthorize }
    : { kind: 'expiryPolicy', at: expiry };
}

/**
 * One durable timer per deadline: a state change that keeps the deadline keeps its timer (no TimerCanceled
 * and TimerStarted per change); only a new deadline replaces it.
 */
export class DeadlineTimer {
  private armed?: { deadline: Deadline; scope: CancellationScope };
  private firedDeadline?: Deadline;

  arm(deadline: Deadline): void {
    if (this.armed?.deadline.kind === deadline.kind && this.armed.deadline.at === deadline.at) return;
    this.cancel();
    const scope = new CancellationScope();
    this.armed = { deadline, scope };
    scope
      .run(() => sleep(Math.max(deadline.at - Date.now(), 1)))
      .then(
        () => {
          if (this.armed?.scope === scope) {
            this.armed = undefined;
            this.firedDeadline = deadline;
          }
        },
        (error: unknown) => {
          if (!isCancellation(error)) throw error;
        },
      );
  }

  cancel(): void {
    this.armed?.scope.cancel();
    this.armed = undefined;
  }

  /** Cancels a timer that would fire before `at`; one that fires later ends with the run, uncanceled. */
  cancelIfBefore(at: number): void {
    if (this.armed && this.armed.deadline.at < at) this.cancel();
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
  });
  inLifecycleCurrency(state, authorization, 'authorization');
  applyReauthorization(state, authorization, reason, new Date().toISOString());
  return authorization;
}

/** The provider's calls nobody waits on, retried for the lifecycle's `timerCallTimeout`. */
export function providerTimerCalls(input: LifecycleInput, state: LifecycleState): PaymentsCalls {
  return ofProvider(timerCalls(millisecondsOf(input, 'timerCallTimeout')), state.provider);
}

/** What a deadline does: reauthorize what remains, or apply the expiry policy. */
export async function fireTimer(
  state: LifecycleState,
  kind: TimerKind,
  input: LifecycleInput,
): Promise<void> {
  if (isTerminal(state)) return;
  const calls = providerTimerCalls(input, state);
  if (kind === 'reauthorize') {
    const remaining = amountOf(state, minorUnitsOf(state, state.remainingAmount) ?? 0n).value;
    try {
      await reauthorize(state, calls, remaining, 'timer');
      state.reauthorizationFailure = undefined;
    } catch (error) {
      // A refused or timed-out reauthorization leaves the current authorization in place until the expiry
      // policy; operators find it by the ReauthorizationFailure search attribute.
      log.warn('scheduled reauthorization failed', { error: String(error) });
      state.reauthorizeAt = undefined;
      state.reauthorizationFailure = { at: new Date().toISOString(), reason: failureReason(error) };
    }
    return;
  }
  if (state.expiryPolicy === 'void') {
    try {
      await calls.voidAuthorization({
        authorizationId: voidTarget(state),
        idempotencyKey: voidIdempotencyKey(state),
      });
      markEnded(state, 'VOIDED');
      return;
    } catch (error) {
      log.warn('void before expiry failed; marking the lifecycle expired', { error: String(error) });
    }
  }
  markEnded(state, 'EXPIRED');
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
