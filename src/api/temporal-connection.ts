import {
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ConnectionOptions,
} from '@temporalio/client';
import type { TemporalConnectionOptions } from '../temporal-env';

/**
 * The API's connection to Temporal. With Temporal down, a request is answered 503 within a few seconds (the
 * SDK's default retries a call for about 20 s): callers retry with their idempotency key, and the provider
 * delivers a webhook again.
 */
export function apiConnectionOptions(connection: TemporalConnectionOptions): ConnectionOptions {
  return {
    ...connection,
    connectTimeout: '2 seconds',
    interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: 4 }))],
  };
}
