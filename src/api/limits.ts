import { loadConfig, type Config } from '../config';

/** What bounds every request to the API, authenticated or not: its rate per source and its duration. */
export interface ApiLimits {
  /** Requests per source address within `rateLimitWindowMs`; more are answered 429. */
  rateLimitMax: number;
  rateLimitWindowMs: number;
  /** The whole request, body included, must arrive within this; otherwise 408 and the connection closes. */
  requestTimeoutMs: number;
  /** The request's headers must arrive within this (at most `requestTimeoutMs`). */
  headersTimeoutMs: number;
}

export function apiLimits(config: Config): ApiLimits {
  return {
    rateLimitMax: config.API_RATE_LIMIT_MAX,
    rateLimitWindowMs: config.API_RATE_LIMIT_WINDOW_MS,
    requestTimeoutMs: config.API_REQUEST_TIMEOUT_MS,
    headersTimeoutMs: config.API_HEADERS_TIMEOUT_MS,
  };
}

// The configuration's defaults: an API built without limits is bounded all the same.
const defaults = loadConfig({});
export const defaultApiLimits: ApiLimits = apiLimits(defaults);
export const defaultTransmissionToleranceMs = defaults.WEBHOOK_TRANSMISSION_TOLERANCE_MS;
