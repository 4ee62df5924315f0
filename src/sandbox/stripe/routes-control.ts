import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseRequest } from '../errors';
import type { StripeBooks } from './books';
import { cardBrands } from './records';
import { disputeResource, paymentIntentResource, refundResource } from './resources';

const newIntentSchema = z.object({
  /** In the currency's smallest unit, as Stripe writes it. */
  amount: z.number().int().positive(),
  currency: z.string().regex(/^[a-z]{3}$/),
  multicapture: z.boolean().default(false),
  /** The payer's card, and what it allows (the checkout asks for each); later intents on it keep them: */
  brand: z.enum(cardBrands).default('visa'),
  /** incremental authorizations (Stripe's request_incremental_authorization_support), */
  incremental: z.boolean().default(false),
  /** an extended authorization (30 days), */
  extended: z.boolean().default(false),
  /** overcapture (captures up to maximum_amount_capturable). */
  overcapture: z.boolean().default(false),
  /** Days the hold lasts, extended or not; unset: 7, or 30 with an extended authorization. */
  hold_days: z.number().int().min(1).max(30).optional(),
  metadata: z.record(z.string(), z.string()).optional(),
});
/** Where a test moves a hold's end to (Unix seconds), so it need not wait days. */
const holdEndSchema = z.object({ capture_before: z.number().int().positive() });
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
    const card = {
      brand: body.brand,
      multicapture: body.multicapture,
      incremental: body.incremental,
      extended: body.extended,
      overcapture: body.overcapture,
    };
    const intent = books.authorize({
      amount: body.amount,
      currency: body.currency,
      card,
      requests: card,
      ...(body.hold_days !== undefined && { holdDays: body.hold_days }),
      metadata: body.metadata,
    });
    return reply.code(201).send(intentJson(intent.id));
  });

  app.post('/sandbox/payment_intents/:id/capture_before', async (request) => {
    const { id } = parseRequest(idParams, request.params);
    const { capture_before } = parseRequest(holdEndSchema, request.body);
    books.moveHoldEnd(id, capture_before);
    return intentJson(id);
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
