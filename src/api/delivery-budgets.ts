import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, type ApiErrorCode } from './errors';
import type { ApiLimits } from './limits';

/**
 * What a webhook delivery spends, decided after the intake's cheap checks so that a flood never spends the
 * budget a genuine delivery needs:
 * - refused by a cheap check: its source's refusal budget (per client address, the first untrusted hop when
 *   TRUST_PROXY is set); past it, 429 in place of the refusal;
 * - past the cheap checks and verified by a provider call (PayPal's verify API): first its source's budget of
 *   such deliveries, so one source cannot start unbounded runs, then its provider's;
 * - past the cheap checks otherwise (a signature checked here): its provider's budget only.
 */
export interface DeliveryBudgets {
  /** The answer to a refused delivery: `refusal` itself, or 429 once its source's refusal budget is spent. */
  refused(request: FastifyRequest, refusal: ApiError): Promise<ApiError>;
  /** Spends the budgets of a delivery past the cheap checks; rejects with 429 when one is spent. */
  passed(request: FastifyRequest, delivery: { provider: string; verifiedRemotely: boolean }): Promise<void>;
}

// What a delivery's cheap checks refuse: its route, size, media type or headers and body.
const refusalCodes: readonly ApiErrorCode[] = [
  'WEBHOOK_DELIVERY_INVALID',
  'VALIDATION_FAILED',
  'NOT_FOUND',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
];

/** Whether the answer refuses the delivery on a cheap check (and so spends its source's refusal budget). */
export function isCheapRefusal(error: ApiError): boolean {
  return refusalCodes.includes(error.code);
}

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;

/** The budgets over `limits`, counted by the rate limiter's `createRateLimit` (@fastify/rate-limit). */
export function deliveryBudgets(
  createRateLimit: FastifyInstance['createRateLimit'],
  limits: ApiLimits,
): DeliveryBudgets {
  const timeWindow = limits.rateLimitWindowMs;
  const perSource = (max: number, budget: string) =>
    createRateLimit({ max, timeWindow, keyGenerator: (request) => `${budget}:${request.ip}` });
  const refusedBySource = perSource(limits.webhookRefusedRateLimitMax, 'delivery-refused');
  const remoteBySource = perSource(limits.webhookRemoteVerifyRateLimitMax, 'delivery-remote');
  const byProvider = new Map<string, Limiter>();
  const providerBudget = (provider: string) => {
    let limiter = byProvider.get(provider);
    if (!limiter) {
      limiter = createRateLimit({
        max: limits.webhookRateLimitMax,
        timeWindow,
        keyGenerator: () => `delivery-provider:${provider}`,
      });
      byProvider.set(provider, limiter);
    }
    return limiter;
  };
  const windowSeconds = timeWindow / 1000;

  /** Spends one of `limiter`'s budget: the 429 to answer once it is spent, else undefined. */
  const spend = async (limiter: Limiter, request: FastifyRequest, what: string) => {
    const limit = await limiter(request);
    if (limit.isAllowed || !limit.isExceeded) return undefined;
    return rateLimited(
      limit.ttlInSeconds,
      `more than ${limit.max} ${what} in ${windowSeconds} s: retry later`,
    );
  };

  return {
    async refused(request, refusal) {
      return (await spend(refusedBySource, request, 'refused deliveries from this address')) ?? refusal;
    },
    async passed(request, { provider, verifiedRemotely }) {
      if (verifiedRemotely) {
        const spent = await spend(remoteBySource, request, 'deliveries to verify from this address');
        if (spent) throw spent;
      }
      const spent = await spend(providerBudget(provider), request, `${provider} deliveries`);
      if (spent) throw spent;
    },
  };
}

function rateLimited(ttlInSeconds: number, message: string): ApiError {
  return new ApiError('RATE_LIMITED', message, undefined, Math.max(1, ttlInSeconds));
}
