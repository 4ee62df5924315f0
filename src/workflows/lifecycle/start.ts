import { patched } from '@temporalio/workflow';
import { toMinorUnits } from '../../currency-decimals';
import type { Authorization } from '../../providers/resources';
import { durationDefaults, durationMilliseconds, type DurationField } from '../../duration-bounds';
import { ofProvider, startCalls } from './activity-options';
import type { StartingAuthorization } from '../../activities/payments';
import { DEFAULT_PROVIDER } from '../../provider-names';
import {
  LifecycleFailure,
  type CaptureRecord,
  type KeyedAnswer,
  type LifecycleInput,
  type LifecycleState,
  type RefundRecord,
} from './definitions';
import { recordCapturedAtStart } from './shared-charge';
import { canManage, HOLD_END_MARGIN_MS, initialState } from './state';
import { refuse } from './validation';

/** A lifecycle duration in milliseconds: the input's, or the default. */
export function millisecondsOf(input: LifecycleInput, field: DurationField): number {
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
  // A run that adopted a partly captured authorization before this check replays as it ran.
  const adoptedBeforeCheck =
    authorization.status === 'PARTIALLY_CAPTURED' &&
    !authorization.captured_amount &&
    !patched('adoption-reads-captured');
  if (!adoptedBeforeCheck) assertCapturedKnown(authorization);
  // PayPal's statuses have no EXPIRED: an expired authorization keeps its status and its expiration time is past.
  const expires = authorization.expiration_time ? Date.parse(authorization.expiration_time) : NaN;
  if (expires <= Date.now()) {
    refuse(
      LifecycleFailure.notManageable,
      `authorization ${authorization.id} expired at ${authorization.expiration_time}; it can no longer be managed`,
    );
  }
  const made = authorization.create_time ? Date.parse(authorization.create_time) : Date.now();
  const reauthorizeAfter = millisecondsOf(input, 'reauthorizeAfter');
  const expiryAfter = millisecondsOf(input, 'expiryPolicyAfter');
  // A hold that ends sooner than the policy (Stripe's: about 7 days) brings the policy forward to an hour
  // before its end. Only for providers other than PayPal, whose lifecycles keep the deadlines they recorded.
  const holdEnds =
    input.provider !== undefined && input.provider !== DEFAULT_PROVIDER && Number.isFinite(expires)
      ? expires - HOLD_END_MARGIN_MS
      : Infinity;
  const state = initialState(
    workflowId,
    authorization,
    {
      orderId: input.orderId,
      ...(input.owner !== undefined && { owner: input.owner }),
      expiryPolicy: input.expiryPolicy ?? 'void',
      // A result recorded by an earlier version has no bound: the lifecycle's default applies.
      ...(authorization.maxCaptures !== undefined && { maxCaptures: authorization.maxCaptures }),
      // Absent for PayPal: its lifecycles' states stay as they were.
      ...(input.provider !== undefined &&
        input.provider !== DEFAULT_PROVIDER && { provider: input.provider }),
      ...(authorization.reauthorization && { reauthorization: authorization.reauthorization }),
      ...(authorization.sharedCaptureIds && { sharedCaptureIds: authorization.sharedCaptureIds }),
    },
    {
      createTime: new Date(made).toISOString(),
      reauthorizeAt: new Date(made + reauthorizeAfter).toISOString(),
      expiryPolicyAt: new Date(Math.min(made + expiryAfter, holdEnds)).toISOString(),
      readAt,
    },
  );
  // A patch, not a constant: a run started before, replayed, must rebuild its state without the scheme.
  if (patched('idempotency-scheme-2')) state.idempotencyScheme = 2;
  // Into a charge several captures share, what was captured before the start is one of its captures. A run
  // started before it was recorded so keeps the amount apart.
  const chargeId = authorization.capture_id;
  if (state.sharedCaptureIds && state.capturedAtStart && chargeId && patched('captured-at-start-recorded'))
    recordCapturedAtStart(state, chargeId);
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

/** Field names an earlier version carried: answers in a plain object, `key` on answers, `requestId` on records. */
type EarlierState = Omit<LifecycleState, 'keyedAnswers'> & {
  answeredKeys?: Record<string, unknown>;
  keyedAnswers?: Array<Omit<KeyedAnswer, 'idempotencyKey'> & { idempotencyKey?: string; key?: string }>;
};

/** A capture or refund record with the key it was sent under, whichever name it was carried with. */
function withIdempotencyKey<Kept extends CaptureRecord | RefundRecord>(record: Kept): Kept {
  const { requestId, ...rest } = record as Kept & { requestId?: string };
  return requestId === undefined ? record : ({ ...rest, idempotencyKey: requestId } as Kept);
}

/**
 * State carried over continue-as-new (or into a reopened lifecycle), in this version's field names: a run
 * continued from an earlier version keeps its answers and its captures' and refunds' keys.
 */
export function carriedOver(state: LifecycleState, retentionMs: number, now: number): LifecycleState {
  const { answeredKeys, keyedAnswers, ...rest } = state as EarlierState;
  const keptUntil = new Date(now + retentionMs).toISOString();
  return {
    ...rest,
    keyedAnswers: keyedAnswers
      ? keyedAnswers.map(({ key, idempotencyKey, ...answer }) => ({
          idempotencyKey: (idempotencyKey ?? key) as string,
          ...answer,
        }))
      : Object.entries(answeredKeys ?? {}).map(([idempotencyKey, answer]) => ({
          idempotencyKey,
          answer,
          keptUntil,
        })),
    captures: rest.captures.map(withIdempotencyKey),
    ...(rest.refunds && { refunds: rest.refunds.map(withIdempotencyKey) }),
  };
}
