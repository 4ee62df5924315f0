import { ProviderError } from '../port';
import { PaymentsApiError, providerIssue } from './errors';

/**
 * The one classification of PayPal's errors for the port: a refusal is typed by the provider's issue (e.g.
 * AUTHORIZATION_ALREADY_CAPTURED) so workflows can branch on it; a transient error is typed by its name and
 * keeps the provider's Retry-After. Any other error passes through unchanged.
 */
export function providerFailure(error: unknown): unknown {
  if (!(error instanceof PaymentsApiError)) return error;
  return new ProviderError({
    message: error.message,
    type: error.retryable ? error.name : providerIssue(error),
    retryable: error.retryable,
    ...(error.retryAfterMs !== undefined && { retryAfterMs: error.retryAfterMs }),
    details: [
      {
        kind: error.kind,
        status: error.status,
        name: error.name,
        debugId: error.debugId,
        details: error.details,
      },
    ],
  });
}

/** The call, its PayPal errors classified for the port. */
export async function classified<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw providerFailure(error);
  }
}
