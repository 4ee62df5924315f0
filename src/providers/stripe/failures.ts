import Stripe from 'stripe';
import { parseRetryAfterMs } from '../paypal/errors';
import { ProviderError } from '../port';

/** A reused idempotency key with other parameters: neither a refusal of the payment nor worth a retry. */
export const IDEMPOTENCY_KEY_CONFLICT = 'idempotency_error';

/**
 * The one classification of Stripe's errors for the port. A decline (402) is final and typed by its
 * decline code; 400/401/403/404 are final and typed by Stripe's error code; an idempotency_error is final and
 * typed as a key conflict; 409 (a concurrent request under the same key), 429, 5xx and a connection failure
 * are retryable, with Stripe's Retry-After when it gives one. Any other error passes through unchanged.
 */
export function stripeFailure(error: unknown): unknown {
  if (!(error instanceof Stripe.errors.StripeError)) return error;
  const status = error.statusCode;
  const retryable =
    error instanceof Stripe.errors.StripeConnectionError ||
    status === undefined ||
    status === 409 ||
    status === 429 ||
    status >= 500;
  const retryAfterMs = parseRetryAfterMs(error.headers?.['retry-after']);
  return new ProviderError({
    message: `Stripe answered ${status ?? 'nothing'}${error.message ? `: ${error.message}` : ''}`,
    type: failureType(error, retryable),
    retryable,
    ...(retryAfterMs !== undefined && { retryAfterMs }),
    details: [
      {
        status,
        type: error.rawType,
        code: error.code,
        decline_code: error.decline_code,
        param: error.param,
        requestId: error.requestId,
      },
    ],
  });
}

function failureType(error: Stripe.errors.StripeError, retryable: boolean): string {
  if (error instanceof Stripe.errors.StripeIdempotencyError) return IDEMPOTENCY_KEY_CONFLICT;
  if (retryable) return error.statusCode === undefined ? 'NETWORK_ERROR' : `HTTP_${error.statusCode}`;
  return error.decline_code ?? error.code ?? error.rawType ?? `HTTP_${error.statusCode}`;
}

/** The call, its Stripe errors classified for the port. */
export async function classified<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw stripeFailure(error);
  }
}
