import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DeliveryIntake } from '../providers/port';
import type { VerificationStarter } from '../webhooks/verification-starter';
import { WEBHOOK_ROUTE_PATTERN } from '../webhooks/listener-url';
import type { DeliveryBudgets } from './delivery-budgets';
import { acceptDelivery, deliveryRouteOptions, deliveryText, takeRawBodies } from './delivery-intake';
import { ApiError } from './errors';

/** One provider's deliveries: what its port says of them, and where their runs start. */
export interface WebhookIntake {
  delivery: DeliveryIntake;
  verifications: VerificationStarter;
}

export interface WebhookRoutesOptions {
  intakes: readonly WebhookIntake[];
  bodyLimitBytes: number;
  /** What a delivery past the cheap checks spends (the API builds them). */
  budgets: DeliveryBudgets;
}

const providerParams = z.object({ provider: z.string() });

/**
 * POST /webhooks/:provider for every registered provider, and each provider's earlier paths: no API key, a
 * delivery is authenticated by its signature. The route keeps the raw body byte for byte and the headers the
 * provider names, asks the provider for the delivery's id or its cheap refusal, and starts the run; 202 means
 * Temporal holds the delivery.
 */
export const webhookRoutes: FastifyPluginAsyncZod<WebhookRoutesOptions> = async (app, options) => {
  const byProvider = new Map(options.intakes.map((intake) => [intake.delivery.provider, intake]));
  takeRawBodies(app);
  const routeOptions = deliveryRouteOptions(
    'Receive a payments provider webhook delivery',
    options.bodyLimitBytes,
  );

  app.post(
    WEBHOOK_ROUTE_PATTERN,
    { ...routeOptions, schema: { ...routeOptions.schema, params: providerParams } },
    async (request, reply) => {
      const intake = byProvider.get(request.params.provider);
      if (!intake)
        throw new ApiError('NOT_FOUND', `no webhook intake for provider ${request.params.provider}`);
      return receive(intake, request, reply, options.budgets);
    },
  );
  for (const intake of options.intakes) {
    for (const path of intake.delivery.aliasPaths ?? []) {
      app.post(path, routeOptions, (request, reply) => receive(intake, request, reply, options.budgets));
    }
  }
};

async function receive(
  intake: WebhookIntake,
  request: FastifyRequest,
  reply: FastifyReply,
  budgets: DeliveryBudgets,
) {
  const receivedAt = new Date();
  const body = deliveryText(request.body);
  const headers: Record<string, string> = {};
  const missing: string[] = [];
  for (const name of intake.delivery.headerNames) {
    const value = request.headers[name.toLowerCase()];
    const text = Array.isArray(value) ? value[0] : value;
    if (text) headers[name] = text;
    else missing.push(name);
  }
  if (missing.length > 0) {
    throw new ApiError('WEBHOOK_DELIVERY_INVALID', `missing delivery headers: ${missing.join(', ')}`, {
      missing,
    });
  }
  const received = { headers, body };
  let screening;
  try {
    screening = await intake.delivery.screen(received, receivedAt);
  } catch {
    throw new ApiError('PROVIDER_UNAVAILABLE', 'the delivery cannot be checked now: deliver it again later');
  }
  if ('refused' in screening) throw new ApiError('WEBHOOK_DELIVERY_INVALID', screening.refused);
  return acceptDelivery(
    request,
    reply,
    { verifications: intake.verifications, budgets },
    { id: screening.id, received, receivedAt },
  );
}
