import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { z } from 'zod';

/** A positive Temporal duration written as text ("3 days", "12h", "90s"), checked where it enters. */
export const durationSchema = z
  .string()
  .refine((value) => {
    try {
      return msToNumber(value as Duration) > 0;
    } catch {
      return false;
    }
  }, 'a duration such as "3 days", "12h" or "90s"')
  .transform((value) => value as Duration);
