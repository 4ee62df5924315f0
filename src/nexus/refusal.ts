import { ApplicationFailure } from '@temporalio/common';
import { HandlerError } from 'nexus-rpc';

/**
 * A handler error that is never retried. Its message also travels as its cause's: the server passes a handler
 * error's own message on as "Encoded failure" (our failure converter encodes messages), a cause's reaches
 * the caller's codec.
 */
export function refusal(type: 'UNAUTHORIZED' | 'RESOURCE_EXHAUSTED', message: string): HandlerError {
  return new HandlerError(type, message, {
    retryableOverride: false,
    cause: ApplicationFailure.create({ type, message, nonRetryable: true }),
  });
}
