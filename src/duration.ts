import type { Duration } from '@temporalio/common';
import ms, { type StringValue } from 'ms';
import { z } from 'zod';

function durationText(allowZero: boolean) {
  return z
    .string()
    .refine(
      (value) => {
        const millis = ms(value as StringValue);
        return Number.isFinite(millis) && (allowZero ? millis >= 0 : millis > 0);
      },
      `a ${allowZero ? '' : 'positive '}duration such as "3 days", "12h" or "90s"`,
    )
    .transform((value) => value as Duration);
}

/** A positive Temporal duration written as text ("3 days", "12h", "90s"), checked where it enters. */
export const durationSchema = durationText(false);
/** The same, where "0s" means "not at all" (e.g. no late-event window). */
export const durationOrZeroSchema = durationText(true);
