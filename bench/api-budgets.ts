/** The API's budgets opened up: a bench sends every request from 127.0.0.1, far more than the default per source. */
export const BENCH_RATE_LIMIT = {
  API_RATE_LIMIT_MAX: '1000000',
  API_CALLER_RATE_LIMIT_MAX: '1000000',
  WEBHOOK_RATE_LIMIT_MAX: '1000000',
  WEBHOOK_REFUSED_RATE_LIMIT_MAX: '1000000',
  WEBHOOK_REMOTE_VERIFY_RATE_LIMIT_MAX: '1000000',
};
