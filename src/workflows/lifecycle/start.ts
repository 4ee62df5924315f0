import type { Duration } from '@temporalio/common';
import { toMinorUnits } from '../../currency-decimals';
import { durationMilliseconds } from '../../duration-bounds';
import { startCalls } from './activity-options';
import { LifecycleFailure, type LifecycleInput, type LifecycleState } from './definitions';
import { canManage, initialState } from './state';
import { refuse } from './validation';

const DAY = 24 * 60 * 60 * 1000;

/** What a start leaves out of its input, in milliseconds. */
export const defaults = {
  reauthorizeAfter: 3 * DAY,
  expiryPolicyAfter: 29 * DAY - 60 * 60 * 1000,
  // PayPal redelivers an unacknowledged webhook for up to 3 days.
  lateEventWindow: 3 * DAY,
  idempotencyKeyRetention: DAY,
  timerCallTimeout: 60 * 60 * 1000,
} as const;

/** Milliseconds of a Temporal duration ("3 days", "90s" or a number of ms); the default when not given. */
export function millisecondsOf(duration: Duration | undefined, fallback: number): number {
  if (duration === undefined) return fallback;
  const millis = durationMilliseconds(duration);
  if (Number.isNaN(millis)) throw new TypeError(`not a duration: "${duration}"`);
  return millis;
}

/** Reads the authorization and sets the deadlines, measured from when it was made. */
export async function startState(workflowId: string, input: LifecycleInput): Promise<LifecycleState> {
  const authorization = await startCalls.getAuthorization(input.authorizationId);
  if (!canManage(authorization)) {
    refuse(
      LifecycleFailure.notManageable,
      `authorization ${authorization.id} is ${authorization.status}; only CREATED, PENDING or PARTIALLY_CAPTURED can be managed`,
    );
  }
  const { currency_code, value } = authorization.amount;
  if (toMinorUnits(value, currency_code) === undefined) {
    refuse(
      LifecycleFailure.notManageable,
      `authorization ${authorization.id} is for ${value} ${currency_code}: not an amount with the decimals of a known ISO 4217 currency`,
    );
  }
  // PayPal's statuses have no EXPIRED: an expired authorization keeps its status and its expiration time is past.
  const expires = authorization.expiration_time ? Date.parse(authorization.expiration_time) : NaN;
  if (expires <= Date.now()) {
    refuse(
      LifecycleFailure.notManageable,
      `authorization ${authorization.id} expired at ${authorization.expiration_time}; it can no longer be managed`,
    );
  }
  const made = authorization.create_time ? Date.parse(authorization.create_time) : Date.now();
  const reauthorizeAfter = millisecondsOf(input.reauthorizeAfter, defaults.reauthorizeAfter);
  const expiryAfter = millisecondsOf(input.expiryPolicyAfter, defaults.expiryPolicyAfter);
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

/** State carried over continue-as-new; answers in a plain object (`answeredKeys`) become keyed answers. */
export function carriedOver(state: LifecycleState, retentionMs: number, now: number): LifecycleState {
  if (state.keyedAnswers) return state;
  const { answeredKeys, ...rest } = state as LifecycleState & { answeredKeys?: Record<string, unknown> };
  const keptUntil = new Date(now + retentionMs).toISOString();
  return {
    ...rest,
    keyedAnswers: Object.entries(answeredKeys ?? {}).map(([key, answer]) => ({ key, answer, keptUntil })),
  };
}
