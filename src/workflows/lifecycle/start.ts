import { toMinorUnits } from '../../currency-decimals';
import type { Authorization } from '../../providers/resources';
import { durationDefaults, durationMilliseconds, type DurationField } from '../../duration-bounds';
import { ofProvider, startCalls } from './activity-options';
import type { StartingAuthorization } from '../../activities/payments';
import {
  LifecycleFailure,
  type LifecycleInput,
  type LifecycleStart,
  type LifecycleState,
} from './definitions';
import { minorUnitsOrZero } from './money';
import { holdDeadlines } from './hold-deadlines';
import { canManage, initialState } from './state';
import { refuse } from './validation';

/** A lifecycle duration in milliseconds: the input's, or the default. */
export function millisecondsOf(input: LifecycleStart, field: DurationField): number {
  const duration = input[field];
  if (duration === undefined) return durationDefaults[field];
  const millis = durationMilliseconds(duration);
  if (Number.isNaN(millis)) throw new TypeError(`not a duration: "${duration}"`);
  return millis;
}

/** Reads the authorization and sets the deadlines, measured from when it was made. */
export async function startState(workflowId: string, input: LifecycleInput): Promise<LifecycleState> {
  const readAt = new Date().toISOString();
  const authorization: StartingAuthorization = await ofProvider(startCalls, input.provider).getAuthorization(
    input.authorizationId,
  );
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
  assertCapturedKnown(authorization);
  if (input.extendedAuthorization && !authorization.extendedAuthorization) {
    refuse(
      LifecycleFailure.invalidRequest,
      `extendedAuthorization: ${input.provider} offers no extended authorization; leave it out`,
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
  const deadlines = holdDeadlines(
    {
      madeAt: made,
      endsAt: Number.isFinite(expires) ? expires : undefined,
      ...(authorization.honorPeriodMs !== undefined && { honorPeriodMs: authorization.honorPeriodMs }),
    },
    {
      ...(input.reauthorizeAfter !== undefined && {
        reauthorizeAfter: millisecondsOf(input, 'reauthorizeAfter'),
      }),
      ...(input.expiryPolicyAfter !== undefined && {
        expiryPolicyAfter: millisecondsOf(input, 'expiryPolicyAfter'),
      }),
    },
  );
  const state = initialState(
    workflowId,
    authorization,
    {
      orderId: input.orderId,
      ...(input.owner !== undefined && { owner: input.owner }),
      expiryPolicy: input.expiryPolicy ?? 'void',
      maxCaptures: authorization.maxCaptures,
      provider: input.provider,
      ...(authorization.reauthorization && { reauthorization: authorization.reauthorization }),
      ...(authorization.sharedCaptureIds && { sharedCaptureIds: authorization.sharedCaptureIds }),
      ...(authorization.capture_id !== undefined && { sharedChargeId: authorization.capture_id }),
      ...(authorization.capturesEndAtMax && { capturesEndAtMax: authorization.capturesEndAtMax }),
      ...(authorization.overCapturePercent && { overCapturePercent: authorization.overCapturePercent }),
      ...(authorization.overCaptureAtMost?.currency_code === currency_code && {
        overCaptureAtMost: authorization.overCaptureAtMost.value,
      }),
      ...(input.overcapture && { overcapture: true }),
      ...(input.extendedAuthorization && { extendedAuthorization: true }),
      ...(authorization.incrementable && { incrementable: true }),
      keyRetentionMs: authorization.keyRetentionMs,
    },
    {
      createTime: new Date(made).toISOString(),
      ...deadlines,
      readAt,
    },
  );
  // A hold is adopted only while something of it can still be captured: a Stripe intent that succeeded after a
  // partial capture says PARTIALLY_CAPTURED, yet its amount_capturable is 0 (the ledger released the rest).
  if (minorUnitsOrZero(state, state.remainingAmount) === 0n) {
    refuse(
      LifecycleFailure.notManageable,
      `authorization ${authorization.id} is ${authorization.status} with ${authorization.amount_capturable?.value ?? '0'} ${currency_code} left to capture: it holds nothing to manage`,
    );
  }
  return state;
}

/**
 * A partly captured authorization is managed only when its provider says how much was captured (in its
 * currency, no more than authorized): otherwise what remains to capture is unknown. PayPal's does not say.
 */
export function assertCapturedKnown(authorization: Authorization): void {
  if (authorization.status !== 'PARTIALLY_CAPTURED') return;
  const { currency_code, value } = authorization.amount;
  const captured = authorization.captured_amount;
  if (!captured) {
    refuse(
      LifecycleFailure.notManageable,
      `authorization ${authorization.id} is PARTIALLY_CAPTURED and its provider does not say how much was captured: what remains to capture is unknown`,
    );
  }
  const capturedMinor =
    captured.currency_code === currency_code ? toMinorUnits(captured.value, currency_code) : undefined;
  const authorized = toMinorUnits(value, currency_code) ?? 0n;
  if (capturedMinor === undefined || capturedMinor > authorized) {
    refuse(
      LifecycleFailure.notManageable,
      `authorization ${authorization.id} is for ${value} ${currency_code}; its provider says ${captured.value} ${captured.currency_code} was captured, which the lifecycle cannot take as part of it`,
    );
  }
}
