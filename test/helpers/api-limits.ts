import { defaultApiLimits, type ApiLimits } from '../../src/api/limits';

/**
 * The API's budgets opened up for suites and benches, which send every request from 127.0.0.1; a test that
 * shows a budget sets its own.
 */
export const openApiLimits: ApiLimits = {
  ...defaultApiLimits,
  rateLimitMax: 1_000_000,
  callerRateLimitMax: 1_000_000,
  webhookRateLimitMax: 1_000_000,
  webhookRefusedRateLimitMax: 1_000_000,
  webhookRemoteVerifyRateLimitMax: 1_000_000,
};
