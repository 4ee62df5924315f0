import type { Duration } from '@temporalio/common';
import { durationMilliseconds } from '../../duration-bounds';

const DAY = 24 * 60 * 60 * 1000;

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
