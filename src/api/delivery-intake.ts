import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { EMPTY_DELIVERY_BODY_MESSAGE, type WebhookDelivery } from '../providers/webhook-delivery';
import type { VerificationStarter } from '../webhooks/verification-starter';
import type { DeliveryBudgets } from './delivery-budgets';
import { ApiError } from './errors';
import { errorBody } from './schemas';

// What every provider's webhook intake shares: raw bodies, the route's schema, the start of one run per delivery.

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A webhook delivery route: its budgets are spent after its checks, not on arrival. */
    webhookDelivery?: boolean;
  }
}

/** Whether the request is to a webhook delivery route. */
export function isWebhookDelivery(request: FastifyRequest): boolean {
  return request.routeOptions.config?.webhookDelivery === true;
}

const acceptedBody = z.object({ workflowId: z.string(), status: z.enum(['accepted', 'duplicate']) });

/** Scoped to the calling plugin: every content type arrives as the raw bytes, never parsed and re-serialized. */
export function takeRawBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
}

/** A delivery route's options: its body limit and its answers. */
export function deliveryRouteOptions(summary: string, bodyLimitBytes: number) {
  return {
    bodyLimit: bodyLimitBytes,
    config: { webhookDelivery: true },
    schema: {
      tags: ['webhooks'],
      summary,
      response: {
        202: acceptedBody,
        400: errorBody,
        409: errorBody,
        413: errorBody,
        429: errorBody,
        503: errorBody,
      },
    },
  };
}

/**
 * Spends the budgets of a delivery past the cheap checks (429 when one is spent), starts its run (one per
 * `deliveryId`) and answers 202; 409 with Retry-After while an earlier delivery of the same id is still being
 * verified.
 */
export async function acceptDelivery(
  request: FastifyRequest,
  reply: FastifyReply,
  intake: { verifications: VerificationStarter; budgets: DeliveryBudgets },
  delivery: { id: string; received: WebhookDelivery<string>; receivedAt: Date },
) {
  const { verifications, budgets } = intake;
  await budgets.passed(request, {
    provider: verifications.provider,
    verifiedRemotely: verifications.mode === 'api',
  });
  const started = await verifications.start(delivery.id, delivery.received, delivery.receivedAt);
  if (started.stillVerifying) {
    reply.header('retry-after', '60');
    throw new ApiError(
      'WEBHOOK_TRANSMISSION_VERIFYING',
      `delivery ${delivery.id} is still being verified: deliver it again later`,
    );
  }
  return reply
    .code(202)
    .send({ workflowId: started.workflowId, status: started.duplicate ? 'duplicate' : 'accepted' });
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The body as text, exactly: valid UTF-8 (so the text round-trips to the same bytes) holding one JSON document. */
export function deliveryText(raw: unknown): string {
  const bytes = Buffer.isBuffer(raw) ? raw : Buffer.alloc(0);
  if (bytes.length === 0) throw new ApiError('WEBHOOK_DELIVERY_INVALID', EMPTY_DELIVERY_BODY_MESSAGE);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ApiError('WEBHOOK_DELIVERY_INVALID', 'the delivery body is not UTF-8 text');
  }
  try {
    JSON.parse(text);
  } catch {
    throw new ApiError('WEBHOOK_DELIVERY_INVALID', 'the delivery body is not well-formed JSON');
  }
  return text;
}
