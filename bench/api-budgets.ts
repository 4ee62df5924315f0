import { defaultApiLimits, type ApiLimits } from '../src/api/limits';

/** The API's budgets opened up: a bench sends every request from 127.0.0.1, far more than the default per source. */
export const BENCH_RATE_LIMIT = {
  API_RATE_LIMIT_MAX: '1000000',
  API_CALLER_RATE_LIMIT_MAX: '1000000',
  WEBHOOK_RATE_LIMIT_MAX: '1000000',
  WEBHOOK_REFUSED_RATE_LIMIT_MAX: '1000000',
  WEBHOOK_REMOTE_VERIFY_RATE_LIMIT_MAX: '1000000',
};

/** The same budgets for an API built in the bench's own process. */
export const benchApiLimits: ApiLimits = {
  ...defaultApiLimits,
  rateLimitMax: 1_000_000,
  callerRateLimitMax: 1_000_000,
  webhookRateLimitMax: 1_000_000,
  webhookRefusedRateLimitMax: 1_000_000,
  webhookRemoteVerifyRateLimitMax: 1_000_000,
};
