import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseRequest } from '../errors';
import type { StripeBooks } from './books';
import { disputeResource, paymentIntentResource, refundResource } from './resources';

const newIntentSchema = z.object({
  /** In the currency's smallest unit, as Stripe writes it. */
  amount: z.number().int().positive(),
  currency: z.string().regex(/^[a-z]{3}$/),
  multicapture: z.boolean().default(false),
  /** Whether the card allows incremental authorizations (Stripe's request_incremental_authorization_support). */
  incremental: z.boolean().default(false),
  /** 7 for most cards; up to 30 with extended authorization. */
  hold_days: z.number().int().min(1).max(30).default(7),
  metadata: z.record(z.string(), z.string()).optional(),
});
const closeSchema = z.object({ outcome: z.enum(['won', 'lost']) });
const disputeSchema = z.object({ inquiry: z.boolean().default(false) });
const failSchema = z.object({ failure_reason: z.string().min(1).optional() });
const idParams = z.object({ id: z.string().min(1) });

/** The Stripe mode's control API: what the payer's checkout, the card network or time would do. */
export function registerStripeControlRoutes(app: FastifyInstance, books: StripeBooks): void {
  const intentJson = (id: string) => {
    const intent = books.intent(id);
    return paymentIntentResource(intent, books.charge(intent.chargeId));
  };

  app.post('/sandbox/payment_intents', async (request, reply) => {
    const body = parseRequest(newIntentSchema, request.body);
    const intent = books.authorize({
      amount: body.amount,
      currency: body.currency,
      multicapture: body.multicapture,
      incremental: body.incremental,
      holdDays: body.hold_days,
      metadata: body.metadata,
    });
    return reply.code(201).send(intentJson(intent.id));
  });

  app.post('/sandbox/payment_intents/:id/expire', async (request) => {
    const { id } = parseRequest(idParams, request.params);
    books.expire(id);
    return intentJson(id);
  });

  app.post('/sandbox/charges/:id/dispute', async (request, reply) => {
    const { id } = parseRequest(idParams, request.params);
    const { inquiry } = parseRequest(disputeSchema, request.body ?? {});
    return reply.code(201).send(disputeResource(books.openDispute(id, inquiry)));
  });

  app.post('/sandbox/refunds/:id/fail', async (request) => {
    const { id } = parseRequest(idParams, request.params);
    const { failure_reason } = parseRequest(failSchema, request.body ?? {});
    return refundResource(books.failRefund(id, failure_reason));
  });

  app.post('/sandbox/disputes/:id/close', async (request) => {
    const { id } = parseRequest(idParams, request.params);
    const { outcome } = parseRequest(closeSchema, request.body);
    return disputeResource(books.closeDispute(id, outcome));
  });
}
