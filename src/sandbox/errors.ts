import type { z } from 'zod';

export interface ErrorDetail {
  field?: string;
  value?: string;
  location?: 'body' | 'path' | 'query' | 'header';
  issue: string;
  description?: string;
}

export interface ErrorBody {
  name: string;
  message: string;
  details?: ErrorDetail[];
}

/**
 * Every business refusal (422) the sandbox gives, with PayPal's issue name and wording where PayPal has
 * one. The three marked "sandbox" are not PayPal's: PayPal has no equivalent situation or no public name.
 */
export const refusalIssues = {
  ACTION_DOES_NOT_MATCH_INTENT:
    'The payment was created with intent CAPTURE; only an authorization of a payment with intent AUTHORIZE can be captured.',
  AUTHORIZATION_ALREADY_CAPTURED: 'Authorization has been previously captured.',
  AUTHORIZATION_VOIDED: 'A voided authorization cannot be captured or reauthorized.',
  AUTHORIZATION_EXPIRED: 'The authorization has expired and can no longer be captured or reauthorized.',
  // sandbox: the reauthorization, not the original, is the one to capture.
  AUTHORIZATION_REAUTHORIZED: 'This authorization was reauthorized; capture the reauthorization instead.',
  MAX_CAPTURE_AMOUNT_EXCEEDED:
    'Capture amount exceeds the maximum amount allowed: 115% of the authorized amount in all captures.',
  AUTH_CAPTURE_CURRENCY_MISMATCH: 'Currency of capture must be the same as currency of authorization.',
  AUTH_CURRENCY_MISMATCH:
    'The currency of a reauthorization must be the currency of the original authorization.',
  // sandbox: PayPal caps the total at 115% of the original; the sandbox at what is left uncaptured.
  REAUTHORIZATION_AMOUNT_EXCEEDED:
    'A reauthorization cannot exceed the amount left uncaptured on the authorization.',
  REAUTHORIZATION_NOT_SUPPORTED:
    'A reauthorization cannot be reauthorized, and an authorization can be reauthorized only once.',
  PREVIOUSLY_CAPTURED: 'Authorization has been previously captured and hence cannot be voided.',
  PREVIOUSLY_VOIDED: 'Authorization has been previously voided and hence cannot be voided again.',
  CANNOT_BE_VOIDED: 'A reauthorization cannot be voided. Please void the original parent authorization.',
  INVALID_CURRENCY_CODE: 'Currency code is invalid or is not currently supported.',
  CANNOT_BE_ZERO_OR_NEGATIVE: 'Must be greater than zero.',
  DECIMAL_PRECISION: 'If the currency supports decimals, only two decimal place precision is supported.',
  DECIMALS_NOT_SUPPORTED: 'Currency does not support decimals.',
  CAPTURE_FULLY_REFUNDED: 'The capture has already been fully refunded',
  REFUND_CAPTURE_CURRENCY_MISMATCH: 'Refund must be in the same currency as the capture',
  REFUND_NOT_ALLOWED: 'Capture cannot be refunded.',
  REFUND_AMOUNT_EXCEEDED:
    'The refund amount must be less than or equal to the capture amount that has not yet been refunded.',
  PENDING_CAPTURE:
    'Cannot initiate a refund as the capture is pending. Capture is typically pending when the payer has funded the transaction using e-check/bank funded.',
  REFUND_NOT_PERMITTED_DUE_TO_CHARGEBACK:
    'Refunds are not allowed on this capture due to a chargeback on the card or bank. Please contact the payee to resolve the chargeback.',
  // sandbox: a control route's refusal; only a completed refund can fail or be canceled here.
  REFUND_NOT_COMPLETED: 'Only a COMPLETED refund (not a reversal) can fail or be canceled.',
  // sandbox: PayPal answers this with a capture whose status is not PENDING.
  CAPTURE_NOT_PENDING: 'Only a PENDING capture can be completed.',
} as const;

export type RefusalIssue = keyof typeof refusalIssues;

/** An answer the provider gives instead of a resource; the provider mode shapes its body when it is sent. */
export class ProviderError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: ErrorBody,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.message);
    this.name = 'ProviderError';
  }
}

export function refusal(issue: RefusalIssue, description: string = refusalIssues[issue]): ProviderError {
  return new ProviderError(422, {
    name: 'UNPROCESSABLE_ENTITY',
    message:
      'The requested action could not be performed, semantically incorrect, or failed business validation.',
    details: [{ issue, description }],
  });
}

export function invalidRequest(details: ErrorDetail[]): ProviderError {
  return new ProviderError(400, {
    name: 'INVALID_REQUEST',
    message: 'Request is not well-formed, syntactically incorrect, or violates schema.',
    details,
  });
}

/** 400 for a body that is not well-formed JSON. */
export function malformedRequestJson(description = 'The request JSON is not well formed.'): ProviderError {
  return invalidRequest([{ field: '/', location: 'body', issue: 'MALFORMED_REQUEST_JSON', description }]);
}

export function resourceNotFound(description: string): ProviderError {
  return new ProviderError(404, {
    name: 'RESOURCE_NOT_FOUND',
    message: 'The specified resource does not exist.',
    details: [{ issue: 'INVALID_RESOURCE_ID', location: 'path', description }],
  });
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** Parses `input` with `schema`, or throws a 400 whose details name each field that was wrong. */
export function parseRequest<T extends z.ZodType>(
  schema: T,
  input: unknown,
  location: 'body' | 'query' = 'body',
): z.infer<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw invalidRequest(
    parsed.error.issues.map((issue) => {
      const missing = issue.path.length > 0 && valueAt(input, issue.path) === undefined;
      return {
        field: `/${issue.path.map(String).join('/')}`,
        location,
        issue: missing ? 'MISSING_REQUIRED_PARAMETER' : 'INVALID_PARAMETER_SYNTAX',
        description: issue.message,
      };
    }),
  );
}
