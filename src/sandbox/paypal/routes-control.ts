import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseRequest } from '../errors';
import type { PaypalContext } from './context';
import { refundResource } from './resources';

const idParams = z.object({ id: z.string().min(1) });

/**
 * PayPal mode's own control routes: a completed refund that fails at the payer's side or is canceled
 * (PayPal's refund statuses FAILED and CANCELLED); its money is the merchant's again.
 */
export function registerPaypalControlRoutes(app: FastifyInstance, context: PaypalContext): void {
  const returned = (status: 'FAILED' | 'CANCELLED') => async (request: { params: unknown }) => {
    const { id } = parseRequest(idParams, request.params);
    return refundResource(context.refunds.returnRefund(id, status), context.baseUrl());
  };
  app.post('/sandbox/refunds/:id/fail', returned('FAILED'));
  app.post('/sandbox/refunds/:id/cancel', returned('CANCELLED'));
}
