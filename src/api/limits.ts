import { loadApiConfig, type Config } from '../config';

/** What bounds every request to the API, authenticated or not: its rate and its duration. */
export interface ApiLimits {
  /** Requests per client address within `rateLimitWindowMs` without a known API key; more are answered 429. */
  rateLimitMax: number;
  rateLimitWindowMs: number;
  /** Requests per caller (API key) within the window; its budget, whatever its address. */
  callerRateLimitMax: number;
  /** Webhook deliveries past the intake's cheap checks within the window, per provider, every sender together. */
  webhookRateLimitMax: number;
  /** Deliveries refused by the intake's cheap checks within the window, per client address. */
  webhookRefusedRateLimitMax: number;
  /** Deliveries past the cheap checks that the provider verifies (a remote call), per client address. */
  webhookRemoteVerifyRateLimitMax: number;
  /** The whole request, body included, must arrive within this; otherwise 408 and the connection closes. */
  requestTimeoutMs: number;
  /** The request's headers must arrive within this (at most `requestTimeoutMs`). */
  headersTimeoutMs: number;
  /** A lifecycle command's answer within this, else 504 with Retry-After (the command goes on). */
  answerWaitMs: number;
}

export function apiLimits(
  config: Pick<
    Config,
    | 'API_RATE_LIMIT_MAX'
    | 'API_RATE_LIMIT_WINDOW_MS'
    | 'API_CALLER_RATE_LIMIT_MAX'
    | 'WEBHOOK_RATE_LIMIT_MAX'
    | 'WEBHOOK_REFUSED_RATE_LIMIT_MAX'
    | 'WEBHOOK_REMOTE_VERIFY_RATE_LIMIT_MAX'
    | 'API_REQUEST_TIMEOUT_MS'
    | 'API_HEADERS_TIMEOUT_MS'
    | 'API_ANSWER_WAIT_MS'
  >,
): ApiLimits {
  return {
    rateLimitMax: config.API_RATE_LIMIT_MAX,
    rateLimitWindowMs: config.API_RATE_LIMIT_WINDOW_MS,
    callerRateLimitMax: config.API_CALLER_RATE_LIMIT_MAX,
    webhookRateLimitMax: config.WEBHOOK_RATE_LIMIT_MAX,
    webhookRefusedRateLimitMax: config.WEBHOOK_REFUSED_RATE_LIMIT_MAX,
    webhookRemoteVerifyRateLimitMax: config.WEBHOOK_REMOTE_VERIFY_RATE_LIMIT_MAX,
    requestTimeoutMs: config.API_REQUEST_TIMEOUT_MS,
    headersTimeoutMs: config.API_HEADERS_TIMEOUT_MS,
    answerWaitMs: config.API_ANSWER_WAIT_MS,
  };
}

// The configuration's defaults: an API built without limits is bounded all the same.
const defaults = loadApiConfig({}, []);
export const defaultApiLimits: ApiLimits = apiLimits(defaults);
export const defaultTransmissionToleranceMs = defaults.WEBHOOK_TRANSMISSION_TOLERANCE_MS;
