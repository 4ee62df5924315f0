import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseRequest } from '../errors';
import type { ProviderAnswer } from '../idempotency';
import { currencyCodeSchema, decimalValueSchema, moneySchema, parseMoney, type MoneyWire } from '../money';
import { answer } from '../replies';
import type { PaypalContext } from './context';
import { answersMinimal, createdAnswer, requestId } from './replies';
import { authorizationResource, captureResource } from './resources';

const captureRequestSchema = z.object({
  amount: moneySchema.optional(),
  invoice_id: z.string().min(1).max(127).optional(),
  final_capture: z.boolean().optional(),
  note_to_payer: z.string().max(255).optional(),
  soft_descriptor: z.string().max(22).optional(),
});

/** Spec 2.2's form of the reauthorize body. */
const specReauthorizeSchema = z.object({
  amount: z.object({ currency: currencyCodeSchema, total: decimalValueSchema }),
});
/** PayPal's own form, which the client's `paypal` dialect sends. */
const paypalReauthorizeSchema = z.object({ amount: moneySchema });

const idParams = z.object({ id: z.string().min(1).max(64) });

function reauthorizeAmount(body: unknown): MoneyWire | undefined {
  const amount: unknown = (body as { amount?: unknown } | undefined)?.amount;
  if (amount === undefined) return undefined;
  if (typeof amount === 'object' && amount !== null && ('currency' in amount || 'total' in amount)) {
    const { currency, total } = parseRequest(specReauthorizeSchema, body).amount;
    return { currency_code: currency, value: total };
  }
  return parseRequest(paypalReauthorizeSchema, body).amount;
}

/** Read, capture, void and reauthorize authorizations (Payments v2). */
export function registerAuthorizationRoutes(app: FastifyInstance, context: PaypalContext): void {
  const { ledger, idempotency, faults } = context;
  const path = '/v2/payments/authorizations/:id';

  app.get(path, async (request, reply) => {
    const { id } = parseRequest(idParams, request.params);
    return answer(reply, faults, 'get', () => ({
      statusCode: 200,
      body: authorizationResource(ledger.authorization(id), context.baseUrl(), context.dialect),
    }));
  });

  app.get('/v2/payments/captures/:id', async (request, reply) => {
    const { id } = parseRequest(idParams, request.params);
    return answer(reply, faults, 'get', () => {
      const capture = ledger.capture(id);
      const authorization = ledger.authorization(capture.authorizationId);
      return { statusCode: 200, body: captureResource(capture, authorization, context.baseUrl()) };
    });
  });

  app.post(`${path}/capture`, async (request, reply) => {
    const { id } = parseRequest(idParams, request.params);
    const body = parseRequest(captureRequestSchema, request.body ?? {});
    const key = requestId(request, context.dialect);
    return answer(reply, faults, 'capture', () =>
      idempotency.run(key && `capture:${id}:${key}`, (): ProviderAnswer => {
        const capture = ledger.captureAuthorization(id, {
          amount: body.amount && parseMoney(body.amount),
          finalCapture: body.final_capture,
          invoiceId: body.invoice_id,
          noteToPayer: body.note_to_payer,
          softDescriptor: body.soft_descriptor,
        });
        const resource = captureResource(capture, ledger.authorization(id), context.baseUrl());
        return createdAnswer(request, context.dialect, resource);
      }),
    );
  });

  app.post(`${path}/void`, async (request, reply) => {
    const { id } = parseRequest(idParams, request.params);
    const key = requestId(request, context.dialect);
    return answer(reply, faults, 'void', () =>
      idempotency.run(key && `void:${id}:${key}`, (): ProviderAnswer => {
        const authorization = ledger.voidAuthorization(id);
        if (answersMinimal(request, context.dialect)) return { statusCode: 204 };
        return {
          statusCode: 200,
          body: authorizationResource(authorization, context.baseUrl(), context.dialect),
        };
      }),
    );
  });

  app.post(`${path}/reauthorize`, async (request, reply) => {
    const { id } = parseRequest(idParams, request.params);
    const amount = reauthorizeAmount(request.body);
    const key = requestId(request, context.dialect);
    return answer(reply, faults, 'reauthorize', () =>
      idempotency.run(key && `reauthorize:${id}:${key}`, (): ProviderAnswer => {
        const reauthorization = ledger.reauthorize(id, amount && parseMoney(amount));
        const resource = authorizationResource(reauthorization, context.baseUrl(), context.dialect);
        return createdAnswer(request, context.dialect, resource);
      }),
    );
  });
}
