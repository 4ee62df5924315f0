import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseRequest } from '../errors';
import type { ProviderAnswer } from '../idempotency';
import { moneySchema, parseMoney } from '../money';
import { answer } from '../replies';
import type { PaypalContext } from './context';
import { createdAnswer, requestId } from './replies';
import { refundResource } from './resources';

/**
 * PayPal's refund_request; `payment_instruction` (platform fees) is accepted and not modelled. `custom_id`
 * is held to the pattern of PayPal's refund resource, which echoes it: the request's own pattern allows any
 * text, but a refund never carries characters outside this set.
 */
const refundRequestSchema = z.object({
  amount: moneySchema.optional(),
  custom_id: z
    .string()
    .min(1)
    .max(127)
    .regex(/^[A-Za-z0-9-_.,]*$/, 'letters, digits and -_., only')
    .optional(),
  invoice_id: z.string().min(1).max(127).optional(),
  note_to_payer: z.string().min(1).max(255).optional(),
  payment_instruction: z.looseObject({}).optional(),
});

const idParams = z.object({ id: z.string().min(1).max(64) });

/** Refund a capture, read a refund (Payments v2). */
export function registerRefundRoutes(app: FastifyInstance, context: PaypalContext): void {
  const { refunds, idempotency, faults } = context;

  app.post('/v2/payments/captures/:id/refund', async (request, reply) => {
    const { id } = parseRequest(idParams, request.params);
    const body = parseRequest(refundRequestSchema, request.body ?? {});
    const key = requestId(request, context.dialect);
    return answer(reply, faults, 'refund', () =>
      idempotency.run(key && `refund:${id}:${key}`, (): ProviderAnswer => {
        const refund = refunds.refundCapture(id, {
          amount: body.amount && parseMoney(body.amount),
          invoiceId: body.invoice_id,
          customId: body.custom_id,
          noteToPayer: body.note_to_payer,
        });
        const resource = refundResource(refund, context.baseUrl());
        return createdAnswer(request, context.dialect, resource);
      }),
    );
  });

  app.get('/v2/payments/refunds/:id', async (request, reply) => {
    const { id } = parseRequest(idParams, request.params);
    return answer(reply, faults, 'get', () => ({
      statusCode: 200,
      body: refundResource(refunds.refund(id), context.baseUrl()),
    }));
  });
}
