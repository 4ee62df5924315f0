import { createHash } from 'node:crypto';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import { WEBHOOK_ROUTE } from '../webhooks/listener-url';
import { ApiError } from './errors';
import type { ApiLimits } from './limits';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const bearerKey = (request: FastifyRequest) =>
  /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];

/**
 * Whose budget a request spends: a known API key's own (`caller:` and the key's SHA-256, never the key), or
 * else its client address (`address:`, the first untrusted hop when TRUST_PROXY is set). An unknown key spends
 * the address's budget, so inventing keys buys no fresh budget. At merge with caller identities this becomes
 * the authenticated `request.caller.id`.
 */
export function rateLimitKeyOf(apiKeys: readonly string[]): (request: FastifyRequest) => string {
  const known = new Set(apiKeys.map(sha256));
  return (request) => {
    const key = bearerKey(request);
    const hash = key === undefined ? undefined : sha256(key);
    return hash !== undefined && known.has(hash) ? `caller:${hash}` : `address:${request.ip}`;
  };
}

/**
 * Three budgets over one window, each with its own counters: per caller on authenticated requests, per client
 * address on the others, and the webhook intake's own (every sender together, sized to the provider's delivery
 * rate), so a flood of deliveries starts at most that many verification runs per window.
 */
export function addRateLimits<Logger extends FastifyBaseLogger>(
  server: FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, Logger>,
  limits: ApiLimits,
  apiKeys: readonly string[],
): void {
  const rateLimitKey = rateLimitKeyOf(apiKeys);
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
  server.addHook('onRequest', async (request, reply) => {
    const isDelivery = request.method === 'POST' && request.routeOptions.url === WEBHOOK_ROUTE;
    const limit = await (isDelivery ? webhookIntake(request) : byCaller(request));
    if (limit.isAllowed || !limit.isExceeded) return;
    reply.header('retry-after', String(Math.max(1, limit.ttlInSeconds)));
    throw new ApiError(
      'RATE_LIMITED',
      `more than ${limit.max} ${isDelivery ? 'deliveries' : 'requests'} in ${timeWindow / 1000} s: retry later`,
    );
  });
}
