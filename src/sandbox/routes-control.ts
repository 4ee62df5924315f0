import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SandboxContext } from './context';
import { parseRequest } from './errors';
import { faultRequestSchema } from './faults';
import { registerHeldDeliveryRoutes } from './held-deliveries';
import type { SandboxMode } from './mode';
import { moneySchema, parseMoney } from './money';
import { anchorTypeSchema, webhookSubscriptionSchema } from './webhooks';

const createAuthorizationSchema = z.object({
  amount: moneySchema,
  intent: z.enum(['AUTHORIZE', 'CAPTURE']).default('AUTHORIZE'),
  invoice_id: z.string().min(1).max(127).optional(),
  custom_id: z.string().min(1).max(127).optional(),
  order_id: z.string().min(1).max(64).optional(),
  capture_status: z.enum(['COMPLETED', 'PENDING', 'DECLINED']).default('COMPLETED'),
});

const createWebhookControlSchema = webhookSubscriptionSchema.extend({
  anchor_type: anchorTypeSchema.default('APPLICATION'),
});
const deliveriesQuerySchema = z.object({
  webhook_id: z.string().optional(),
  event_type: z.string().optional(),
});
const idParams = z.object({ id: z.string().min(1) });
/** Where a test moves the authorization's end to, so it need not wait days. */
const expirationSchema = z.object({ expiration_time: z.iso.datetime({ offset: true }) });

/**
 * The control API under /sandbox, for tests and demos: what in real life the payer, the bank or time would
 * do. No authentication; never part of what a real provider offers. It answers with the mode's resources.
 */
export function registerControlRoutes(
  app: FastifyInstance,
  context: SandboxContext,
  mode: SandboxMode,
): void {
  const { ledger, faults, deliveries, tokens } = context;

  app.post('/sandbox/authorizations', async (request, reply) => {
    const body = parseRequest(createAuthorizationSchema, request.body);
    const authorization = ledger.create({
      amount: parseMoney(body.amount),
      intent: body.intent,
      captureOutcome: body.capture_status,
      invoiceId: body.invoice_id,
      customId: body.custom_id,
      orderId: body.order_id,
    });
    return reply.code(201).send(mode.authorizationResource(authorization));
  });

  app.post('/sandbox/authorizations/:id/expire', async (request) => {
    const { id } = parseRequest(idParams, request.params);
    return mode.authorizationResource(ledger.expire(id));
  });

  app.post('/sandbox/authorizations/:id/expiration', async (request) => {
    const { id } = parseRequest(idParams, request.params);
    const { expiration_time } = parseRequest(expirationSchema, request.body);
    return mode.authorizationResource(ledger.moveExpiration(id, new Date(expiration_time)));
  });

  app.get('/sandbox/authorizations/:id/captures', async (request) => {
    const { id } = parseRequest(idParams, request.params);
    return { captures: ledger.capturesOf(id).map((capture) => mode.captureResource(capture)) };
  });

  app.post('/sandbox/captures/:id/complete', async (request) => {
    const { id } = parseRequest(idParams, request.params);
    return mode.captureResource(ledger.completeCapture(id));
  });

  app.post('/sandbox/captures/:id/reverse', async (request, reply) => {
    const { id } = parseRequest(idParams, request.params);
    return reply.code(201).send(mode.refundResource(context.refunds.reverseCapture(id)));
  });

  app.get('/sandbox/captures/:id/refunds', async (request) => {
    const { id } = parseRequest(idParams, request.params);
    return {
      refunds: context.refunds.refundsOf(id).map((refund) => mode.refundResource(refund)),
    };
  });

  app.post('/sandbox/webhooks', async (request, reply) => {
    const body = parseRequest(createWebhookControlSchema, request.body);
    const webhook = context.webhooks.create(
      body.url,
      mode.eventTypeNames(body.event_types, '/event_types'),
      body.anchor_type,
    );
    return reply.code(201).send(mode.webhookResource(webhook));
  });

  app.post('/sandbox/faults', async (request, reply) => {
    return reply.code(201).send(faults.arm(parseRequest(faultRequestSchema, request.body)));
  });
  app.get('/sandbox/faults', async () => ({ faults: faults.armed() }));
  app.delete('/sandbox/faults', async (_request, reply) => {
    faults.clear();
    return reply.code(204).send();
  });

  app.get('/sandbox/deliveries', async (request) => {
    const query = parseRequest(deliveriesQuerySchema, request.query, 'query');
    const matching = deliveries
      .list()
      .filter((delivery) => query.webhook_id === undefined || delivery.webhookId === query.webhook_id)
      .filter((delivery) => query.event_type === undefined || delivery.eventType === query.event_type);
    return { deliveries: matching };
  });
  app.delete('/sandbox/deliveries', async (_request, reply) => {
    deliveries.clear();
    return reply.code(204).send();
  });

  registerHeldDeliveryRoutes(app);

  app.get('/sandbox/tokens', async () => tokens.stats());
  app.delete('/sandbox/tokens', async (_request, reply) => {
    tokens.revokeAll();
    return reply.code(204).send();
  });
}
