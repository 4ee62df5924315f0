import { ProviderError } from '../errors';

// Stripe's error answers: `{ error: { type, code?, decline_code?, message, param? } }`. The core's ProviderError
// carries them; its `name` is Stripe's error type and `details[0]` the code and param.

export type StripeErrorType = 'api_error' | 'card_error' | 'idempotency_error' | 'invalid_request_error';

export function stripeError(
  statusCode: number,
  type: StripeErrorType,
  message: string,
  fields: { code?: string; param?: string; decline_code?: string } = {},
  headers: Record<string, string> = {},
): ProviderError {
  return new ProviderError(
    statusCode,
    {
      name: type,
      message,
      details: [{ issue: fields.code ?? '', field: fields.param, description: fields.decline_code }],
    },
    headers,
  );
}

/** A refusal of the request as it stands (400), with Stripe's error code. */
export function invalidRequest(message: string, code: string, param?: string): ProviderError {
  return stripeError(400, 'invalid_request_error', message, { code, ...(param && { param }) });
}

export function resourceMissing(kind: string, id: string, param = 'id'): ProviderError {
  return stripeError(404, 'invalid_request_error', `No such ${kind}: '${id}'`, {
    code: 'resource_missing',
    param,
  });
}

/** The core's error (its own 404s, faults, malformed bodies) in Stripe's shape. */
export function stripeErrorBody(error: {
  name: string;
  message: string;
  details?: { issue: string; field?: string; description?: string }[];
}): unknown {
  const detail =
    error.details?.[0] ?? (error.name === 'RATE_LIMIT_REACHED' ? { issue: 'rate_limit' } : undefined);
  const type = stripeTypes.has(error.name) ? error.name : coreType(error.name);
  return {
    error: {
      type,
      message: error.message,
      ...(detail?.issue && { code: detail.issue }),
      ...(detail?.field && { param: detail.field }),
      ...(detail?.description && { decline_code: detail.description }),
    },
  };
}

const stripeTypes = new Set(['api_error', 'card_error', 'idempotency_error', 'invalid_request_error']);

function coreType(name: string): string {
  return name === 'INTERNAL_SERVER_ERROR' ? 'api_error' : 'invalid_request_error';
}
