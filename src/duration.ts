import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { z } from 'zod';

function durationText(allowZero: boolean) {
  return z
    .string()
    .refine(
      (value) => {
        try {
          const ms = msToNumber(value as Duration);
          return allowZero ? ms >= 0 : ms > 0;
        } catch {
          return false;
        }
      },
      `a ${allowZero ? '' : 'positive '}duration such as "3 days", "12h" or "90s"`,
    )
    .transform((value) => value as Duration);
}

/** A positive Temporal duration written as text ("3 days", "12h", "90s"), checked where it enters. */
export const durationSchema = durationText(false);
/** The same, where "0s" means "not at all" (e.g. no late-event window). */
export const durationOrZeroSchema = durationText(true);
