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
import { STRIPE_WEBHOOK_ROUTE, WEBHOOK_ROUTE } from '../webhooks/listener-url';
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
 * address on the others, and each webhook intake's own (PayPal's and Stripe's, every sender together, sized to
 * the provider's delivery rate), so a flood of deliveries starts at most that many verification runs per window.
 */
export function addRateLimits<Logger extends FastifyBaseLogger>(
  server: FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, Logger>,
  limits: ApiLimits,
  callers: readonly ApiCaller[],
): void {
  const rateLimitKey = rateLimitKeyOf(callers);
  const timeWindow = limits.rateLimitWindowMs;
  const byCaller = server.createRateLimit({
    max: (_request, key) => (key.startsWith('caller:') ? limits.callerRateLimitMax : limits.rateLimitMax),
    timeWindow,
    keyGenerator: rateLimitKey,
  });
  const webhookIntake = server.createRateLimit({
    max: limits.webhookRateLimitMax,
    timeWindow,
    keyGenerator: () => 'webhook-intake',
  });
  const stripeIntake = server.createRateLimit({
    max: limits.webhookRateLimitMax,
    timeWindow,
    keyGenerator: () => 'webhook-intake-stripe',
  });
  const intakes = new Map([
    [WEBHOOK_ROUTE, webhookIntake],
    [STRIPE_WEBHOOK_ROUTE, stripeIntake],
  ]);
  server.addHook('onRequest', async (request, reply) => {
    const intake = request.method === 'POST' ? intakes.get(request.routeOptions.url ?? '') : undefined;
    const isDelivery = intake !== undefined;
    const limit = await (intake ?? byCaller)(request);
    if (limit.isAllowed || !limit.isExceeded) return;
    reply.header('retry-after', String(Math.max(1, limit.ttlInSeconds)));
    throw new ApiError(
      'RATE_LIMITED',
      `more than ${limit.max} ${isDelivery ? 'deliveries' : 'requests'} in ${timeWindow / 1000} s: retry later`,
    );
  });
}
