import { ApplicationFailure } from '@temporalio/common';
import { log } from '@temporalio/nexus';
import { HandlerError, OperationError } from 'nexus-rpc';
import { toApiError, type ApiErrorCode } from '../api/errors';
import { PaymentsFailure, type PaymentsFailureType } from './service';

// The API's error classification (src/api/errors.ts), told in Nexus terms. A final answer is a failed
// operation carrying a PaymentsFailure type; a passing trouble is a retryable handler error, which Temporal
// retries with the same request id (and so the same idempotency key).

const finalFailures: Partial<Record<ApiErrorCode, PaymentsFailureType>> = {
  PROVIDER_REFUSED: PaymentsFailure.providerRefused,
  IDEMPOTENCY_KEY_REUSED: PaymentsFailure.keyReused,
  LIFECYCLE_STATE_FORBIDS: PaymentsFailure.stateForbids,
  AUTHORIZATION_NOT_MANAGEABLE: PaymentsFailure.notManageable,
  NOT_FOUND: PaymentsFailure.notFound,
};

export function toNexusError(error: unknown): Error {
  if (error instanceof HandlerError || error instanceof OperationError) return error;
  const apiError = toApiError(error);
  const failureType = finalFailures[apiError.code];
  if (failureType) {
    const cause = ApplicationFailure.create({
      type: failureType,
      message: apiError.message,
      nonRetryable: true,
      details: apiError.details === undefined ? undefined : [apiError.details],
    });
    return new OperationError('failed', apiError.message, { cause });
  }
  switch (apiError.code) {
    case 'VALIDATION_FAILED':
      return new HandlerError('BAD_REQUEST', apiError.message);
    case 'PROVIDER_UNAVAILABLE':
    case 'TEMPORAL_UNAVAILABLE':
    case 'LIFECYCLE_RUN_ENDED':
    case 'ANSWER_PENDING':
      return new HandlerError('UNAVAILABLE', apiError.message, { retryableOverride: true });
    default:
      // As in the API: the caller (another team) learns nothing of our internals; our worker's log does.
      log.error('payments operation failed', { error: error instanceof Error ? error.stack : String(error) });
      return new HandlerError('INTERNAL', apiError.message, { retryableOverride: true });
  }
}
