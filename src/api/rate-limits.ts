import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { ApiCaller } from '../api-callers';
import { callerLookup } from '../auth/callers';
import { isWebhookDelivery } from './delivery-intake';
import { ApiError } from './errors';
import type { ApiLimits } from './limits';

/**
 * Whose budget a request spends: its caller's (`caller:` and the caller's id, whichever of its keys it
 * presents), or else its client address (`address:`, the first untrusted hop when TRUST_PROXY is set). An
 * unknown key spends the address's budget, so inventing keys buys no fresh budget. The limiter runs before
 * the routes' own hooks, so it finds the caller by the key itself.
 */
export function rateLimitKeyOf(callers: readonly ApiCaller[]): (request: FastifyRequest) => string {
  const find = callerLookup(callers);
  return (request) => {
    const caller = find(request.headers.authorization);
    return caller ? `caller:${caller.id}` : `address:${request.ip}`;
  };
}

/**
 * Budgets over one window, each with its own counters: per caller on authenticated requests, per client
 * address on the others. Webhook deliveries spend theirs once the intake has checked them (delivery-budgets.ts).
 */
export function addRateLimits<Logger extends FastifyBaseLogger>(
  server: FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, Logger>,
  limits: ApiLimits,
  callers: readonly ApiCaller[],
): void {
  const timeWindow = limits.rateLimitWindowMs;
  const byCaller = server.createRateLimit({
    max: (_request, key) => (key.startsWith('caller:') ? limits.callerRateLimitMax : limits.rateLimitMax),
    timeWindow,
    keyGenerator: rateLimitKeyOf(callers),
  });
  server.addHook('onRequest', async (request, reply) => {
    if (isWebhookDelivery(request)) return;
    const limit = await byCaller(request);
    if (limit.isAllowed || !limit.isExceeded) return;
    reply.header('retry-after', String(Math.max(1, limit.ttlInSeconds)));
    throw new ApiError(
      'RATE_LIMITED',
      `more than ${limit.max} requests in ${timeWindow / 1000} s: retry later`,
    );
  });
}
