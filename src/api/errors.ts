import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import {
  AuthorizationAdoptedError,
  IdempotencyKeyReusedError,
  LifecycleClosedError,
  LifecycleEndedError,
  LifecycleStartFailedError,
  LifecycleStartPendingError,
} from '../client/lifecycle-client';
import { LifecycleRunEndedError, LifecycleTaskFailedError } from '../client/update-failures';
import { LifecycleFailure } from '../workflows/lifecycle/definitions';

/** Every error code the API answers with, and its HTTP status: the one place they are defined. */
export const apiErrorStatus = {
  VALIDATION_FAILED: 400,
  WEBHOOK_DELIVERY_INVALID: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  LIFECYCLE_STATE_FORBIDS: 409,
  LIFECYCLE_CLOSED: 409,
  AUTHORIZATION_NOT_MANAGEABLE: 409,
  WEBHOOK_TRANSMISSION_VERIFYING: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  PROVIDER_REFUSED: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  LIFECYCLE_TASK_FAILED: 500,
  PROVIDER_UNAVAILABLE: 503,
  TEMPORAL_UNAVAILABLE: 503,
  LIFECYCLE_RUN_ENDED: 503,
  ANSWER_PENDING: 504,
} as const;

/** Every 503 and 504 says, in `Retry-After`, when a retry (with the same Idempotency-Key) can help: in seconds. */
export const RETRY_AFTER_SECONDS = 1;

export type ApiErrorCode = keyof typeof apiErrorStatus;

export class ApiError extends Error {
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly details?: unknown,
    private readonly retryAfter?: number,
  ) {
    super(message);
  }

  get status(): number {
    return apiErrorStatus[this.code];
  }

  /** The `Retry-After` header's value in seconds, for an answer a retry can change (a 429 says its own). */
  get retryAfterSeconds(): number | undefined {
    if (this.retryAfter !== undefined) return this.retryAfter;
    return this.status === 503 || this.status === 504 ? RETRY_AFTER_SECONDS : undefined;
  }

  toBody() {
    return {
      error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) },
    };
  }
}

function applicationCause(error: unknown): ApplicationFailure | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof ApplicationFailure) return cause;
  }
  return undefined;
}

// gRPC DEADLINE_EXCEEDED (4), RESOURCE_EXHAUSTED (8) and UNAVAILABLE (14): the server could not be reached
// in time, or asks to come back later. Any other gRPC status is no reason to retry.
const unreachableCodes: readonly unknown[] = [4, 8, 14];

/** Whether the error, or one of its causes, says the workflow service could not be reached. */
function isTemporalUnreachable(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (unreachableCodes.includes((cause as { code?: unknown }).code)) return true;
  }
  return false;
}

/** The lifecycle's own refusals; any other failure type is the provider's issue. */
const lifecycleFailureCodes: Record<string, ApiErrorCode> = {
  [LifecycleFailure.invalidRequest]: 'VALIDATION_FAILED',
  [LifecycleFailure.notManageable]: 'AUTHORIZATION_NOT_MANAGEABLE',
  [LifecycleFailure.stateForbids]: 'LIFECYCLE_STATE_FORBIDS',
};

/** Maps what the lifecycle client threw to the API's error shape. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof LifecycleClosedError) return new ApiError('LIFECYCLE_CLOSED', error.message);
  if (error instanceof LifecycleEndedError) return new ApiError('LIFECYCLE_STATE_FORBIDS', error.message);
  if (error instanceof IdempotencyKeyReusedError)
    return new ApiError('IDEMPOTENCY_KEY_REUSED', error.message);
  if (error instanceof LifecycleTaskFailedError) return new ApiError('LIFECYCLE_TASK_FAILED', error.message);
  if (error instanceof LifecycleRunEndedError) return new ApiError('LIFECYCLE_RUN_ENDED', error.message);
  if (error instanceof LifecycleStartPendingError) return new ApiError('ANSWER_PENDING', error.message);
  if (error instanceof AuthorizationAdoptedError) {
    return new ApiError('AUTHORIZATION_NOT_MANAGEABLE', error.message);
  }
  if (error instanceof WorkflowNotFoundError) {
    return new ApiError('NOT_FOUND', 'no lifecycle for this authorization');
  }
  if (error instanceof WorkflowUpdateFailedError || error instanceof LifecycleStartFailedError) {
    const failure = applicationCause(error);
    const lifecycleCode = failure && lifecycleFailureCodes[failure.type ?? ''];
    if (failure && lifecycleCode) return new ApiError(lifecycleCode, failure.message);
    if (failure?.nonRetryable) {
      return new ApiError('PROVIDER_REFUSED', failure.message, {
        issue: failure.type,
        provider: failure.details?.[0],
      });
    }
    return new ApiError(
      'PROVIDER_UNAVAILABLE',
      'the payments provider did not answer; retry with the same Idempotency-Key',
      failure ? { issue: failure.type } : undefined,
    );
  }
  if (isTemporalUnreachable(error)) {
    return new ApiError('TEMPORAL_UNAVAILABLE', 'the workflow service cannot be reached; retry later');
  }
  return new ApiError('INTERNAL', 'internal error');
}
