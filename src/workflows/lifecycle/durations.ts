import type { Duration } from '@temporalio/common';
import { durationMilliseconds, type DurationField } from '../../duration-bounds';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

export const defaults: Record<DurationField, number> = {
  reauthorizeAfter: 3 * DAY,
  expiryPolicyAfter: 29 * DAY - HOUR,
  // PayPal redelivers an unacknowledged webhook for up to 3 days.
  lateEventWindow: 3 * DAY,
  idempotencyKeyRetention: DAY,
  timerCallTimeout: HOUR,
};

/** Milliseconds of a duration (bounded at the start of the lifecycle); the default when not given. */
export function millisecondsOf(duration: Duration | undefined, fallback: number): number {
  if (duration === undefined) return fallback;
  const millis = durationMilliseconds(duration);
  if (Number.isNaN(millis)) throw new TypeError(`not a duration: "${duration}"`);
  return millis;
}
