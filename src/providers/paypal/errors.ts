import { z } from 'zod';

/**
 * Where a failure came from:
 * - `provider`: the provider answered with a non-2xx status;
 * - `timeout`: no answer within the client's time-out;
 * - `network`: the connection failed or was dropped before an answer;
 * - `invalid-response`: a 2xx answer that is not the resource the provider promises;
 * - `invalid-request`: refused before anything was sent.
 */
export type PaymentsErrorKind = 'provider' | 'timeout' | 'network' | 'invalid-response' | 'invalid-request';

export interface PaymentsErrorDetail {
  field?: string;
  issue: string;
  description?: string;
}

export interface PaymentsApiErrorInit {
  kind: PaymentsErrorKind;
  message: string;
  /** Provider error name (e.g. UNPROCESSABLE_ENTITY); a name derived from the kind or status otherwise. */
  name?: string;
  status?: number;
  debugId?: string;
  details?: PaymentsErrorDetail[];
  retryAfterMs?: number;
}

/**
 * The one error every client operation throws. It carries only what the provider said and what we
 * observed: never request headers, credentials or tokens.
 */
export class PaymentsApiError extends Error {
  readonly kind: PaymentsErrorKind;
  readonly status: number | undefined;
  readonly debugId: string | undefined;
  readonly details: PaymentsErrorDetail[];
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(init: PaymentsApiErrorInit) {
    super(init.message);
    this.kind = init.kind;
    this.status = init.status;
    this.name = init.name ?? defaultName(init.kind, init.status);
    this.debugId = init.debugId;
    this.details = init.details ?? [];
    this.retryable = isRetryable(init.kind, init.status);
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** The most specific reason the provider gave: the first detail's issue, else the error name. */
export function providerIssue(error: PaymentsApiError): string {
  return error.details[0]?.issue ?? error.name;
}

/**
 * The single classification of failures. 400, 401 (only ever reported after one retry with a fresh
 * token), 403, 404, 422 and every other 4xx are refusals a retry cannot change; 408, 409, 429 and 5xx
 * are transient, and so are time-outs and connection failures. A response we cannot understand and a
 * request we refused to send stay wrong on retry.
 */
export function isRetryable(kind: PaymentsErrorKind, status: number | undefined): boolean {
  switch (kind) {
    case 'timeout':
    case 'network':
      return true;
    case 'invalid-response':
    case 'invalid-request':
      return false;
    case 'provider':
      return status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
  }
}

function defaultName(kind: PaymentsErrorKind, status: number | undefined): string {
  switch (kind) {
    case 'provider':
      return status === undefined ? 'PROVIDER_ERROR' : `HTTP_${status}`;
    case 'timeout':
      return 'TIMEOUT';
    case 'network':
      return 'NETWORK_ERROR';
    case 'invalid-response':
      return 'INVALID_RESPONSE';
    case 'invalid-request':
      return 'INVALID_REQUEST';
  }
}

const providerErrorBodySchema = z.looseObject({
  name: z.string().optional(),
  message: z.string().optional(),
  debug_id: z.string().optional(),
  details: z
    .array(
      z.looseObject({
        field: z.string().optional(),
        issue: z.string(),
        description: z.string().optional(),
      }),
    )
    .optional(),
  // OAuth2 token endpoint errors (RFC 6749 section 5.2)
  error: z.string().optional(),
  error_description: z.string().optional(),
});

/** Builds the error for a non-2xx answer from its status, headers and (possibly non-JSON) body text. */
export function providerError(
  operation: string,
  status: number,
  headers: Record<string, unknown>,
  bodyText: string,
): PaymentsApiError {
  const body = providerErrorBodySchema.safeParse(parseJsonOrUndefined(bodyText));
  const parsed = body.success ? body.data : undefined;
  const name = parsed?.name ?? parsed?.error;
  const providerMessage = parsed?.message ?? parsed?.error_description;
  const debugId = parsed?.debug_id ?? headerText(headers['paypal-debug-id']);
  return new PaymentsApiError({
    kind: 'provider',
    status,
    ...(name !== undefined && { name }),
    message: `${operation} failed with HTTP ${status}${providerMessage ? `: ${providerMessage}` : ''}`,
    ...(debugId !== undefined && { debugId }),
    details: (parsed?.details ?? []).map(({ field, issue, description }) => ({
      ...(field !== undefined && { field }),
      issue,
      ...(description !== undefined && { description }),
    })),
    ...withRetryAfter(headers['retry-after']),
  });
}

const day = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const month = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const time = '\\d{2}:\\d{2}:\\d{2}';
// The three forms of an HTTP date (RFC 9110 section 5.6.7); asctime's has no zone and means GMT.
const httpDateForms = [
  new RegExp(`^${day}, \\d{2} ${month} \\d{4} ${time} GMT$`),
  new RegExp(`^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, \\d{2}-${month}-\\d{2} ${time} GMT$`),
  new RegExp(`^${day} ${month} [ \\d]\\d ${time} \\d{4}$`),
];

/**
 * Retry-After is either delay-seconds, a non-negative integer, or an HTTP date (RFC 9110 section 10.2.3).
 * Anything else ("1.5", "-1", which Date.parse reads as dates long past) is ignored rather than taken as
 * "retry now".
 */
export function parseRetryAfterMs(value: unknown, now: number = Date.now()): number | undefined {
  const text = headerText(value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const form = httpDateForms.findIndex((pattern) => pattern.test(text));
  if (form < 0) return undefined;
  const date = Date.parse(form === 2 ? `${text} GMT` : text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function withRetryAfter(value: unknown): { retryAfterMs?: number } {
  const retryAfterMs = parseRetryAfterMs(value);
  return retryAfterMs === undefined ? {} : { retryAfterMs };
}

function headerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}

/** The parsed JSON text, or undefined when it is not JSON. */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
