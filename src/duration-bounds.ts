import type { Duration } from '@temporalio/common';
import ms from 'ms';

// Pure, so the lifecycle workflow checks its input against the same bounds and defaults as the API and the
// config.

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

/**
 * The longest each lifecycle duration may be: far beyond what an authorization (29 days at PayPal) or a
 * webhook redelivery (3 days) needs, and far inside what a Temporal timer and a JavaScript Date can hold.
 * Only the late-event window may be zero ("not at all").
 */
export const durationBounds = {
  reauthorizeAfter: { zeroAllowed: false, max: 365 * DAY },
  expiryPolicyAfter: { zeroAllowed: false, max: 365 * DAY },
  lateEventWindow: { zeroAllowed: true, max: 30 * DAY },
  idempotencyKeyRetention: { zeroAllowed: false, max: 90 * DAY },
  timerCallTimeout: { zeroAllowed: false, max: DAY },
  eventGracePeriod: { zeroAllowed: false, max: 3 * DAY },
} as const;

export type DurationField = keyof typeof durationBounds;

/**
 * How long a provider honours a request id: PayPal 45 days (its declared idempotencyKeyRetentionMs),
 * Stripe 24 hours. A lifecycle keeps each keyed answer at least this long, so a key it has forgotten is one
 * the provider has forgotten too, and never comes back as the provider's stale replay.
 */
export const providerRequestIdRetention = 45 * DAY;

/** What a lifecycle start leaves out, in milliseconds: the workflow's defaults, and the config's. */
export const durationDefaults: Readonly<Record<DurationField, number>> = {
  reauthorizeAfter: 3 * DAY,
  expiryPolicyAfter: 29 * DAY - HOUR,
  // PayPal redelivers an unacknowledged webhook for up to 3 days.
  lateEventWindow: 3 * DAY,
  idempotencyKeyRetention: 45 * DAY,
  timerCallTimeout: HOUR,
  // PayPal and Stripe deliver an event within seconds of the change; a delivery that failed is retried within
  // the hour (Stripe's first retries, PayPal's first of about 25). An hour without the event is a delivery
  // that may never come, and a read of the provider an hour late costs one read per silent movement.
  eventGracePeriod: HOUR,
};

/** What a duration field accepts, in words, for the refusals of the API, the config and the workflow. */
export function durationRule(field: DurationField): string {
  const { zeroAllowed, max } = durationBounds[field];
  const positive = zeroAllowed ? '' : 'positive ';
  return `a ${positive}duration such as "3 days", "12h" or "90s", at most ${ms(max, { long: true })}`;
}

/** Milliseconds of a Temporal duration ("3 days", "90s" or a number of ms); NaN when it is not one. */
export function durationMilliseconds(duration: Duration): number {
  return typeof duration === 'number' ? duration : ms(duration);
}

/** Whether a duration is within its field's bounds. */
export function isWithinBounds(field: DurationField, duration: Duration): boolean {
  const millis = durationMilliseconds(duration);
  const { zeroAllowed, max } = durationBounds[field];
  return Number.isFinite(millis) && (zeroAllowed ? millis >= 0 : millis > 0) && millis <= max;
}
