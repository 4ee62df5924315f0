import type { Duration } from '@temporalio/common';
import ms from 'ms';
import { z } from 'zod';
import { durationDefaults, durationRule, isWithinBounds, type DurationField } from './duration-bounds';

/**
 * A lifecycle duration written as text ("3 days", "12h", "90s"), checked where it enters (API body, env var)
 * against the bounds the lifecycle itself enforces.
 */
export function durationSchema(field: DurationField) {
  return z
    .string()
    .refine((value) => isWithinBounds(field, value as Duration), durationRule(field))
    .transform((value) => value as Duration);
}

/** The field's default as text ("3 days"), for settings that have one. */
export function durationDefault(field: DurationField): Duration {
  return ms(durationDefaults[field], { long: true }) as Duration;
}
