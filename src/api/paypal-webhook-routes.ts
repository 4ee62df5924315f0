import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { DeliveryHeaderNames } from '../providers/port';
import { WEBHOOK_ROUTE } from '../webhooks/listener-url';
import type { DeliveryScreening } from '../webhooks/delivery-screening';
import type { VerificationStarter } from '../webhooks/verification-starter';
import { acceptDelivery, deliveryRouteOptions, deliveryText, takeRawBodies } from './delivery-intake';
import type { DeliveryBudgets } from './delivery-budgets';
import { ApiError } from './errors';
import { defaultTransmissionToleranceMs } from './limits';

export interface PayPalWebhookRoutesOptions {
  verifications: VerificationStarter;
  bodyLimitBytes: number;
  /** What a delivery past the cheap checks spends (the API builds them). */
  budgets: DeliveryBudgets;
  /** The delivery headers of the configured provider (e.g. SERVICE-* or PAYPAL-*). */
  headerNames: DeliveryHeaderNames;
  /**
   * How far the signed transmission time may be from now; further is refused before any run starts, so a
   * captured signature cannot be replayed after it (default 10 minutes).
   */
  transmissionToleranceMs?: number;
  /** What refuses a delivery before any run starts (certificate host; in local mode, the signature). */
  screening?: DeliveryScreening;
}

// Provider transmission ids are UUIDs; anything printable and short is accepted as a workflow id suffix.
const transmissionIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * POST /webhooks/payments: no API key, a delivery is authenticated by its signature, later, in the
 * webhookVerification workflow. Here the raw body is only checked and kept byte for byte, and the run is
 * started; 202 means Temporal holds the delivery.
 */
export const paypalWebhookRoutes: FastifyPluginAsyncZod<PayPalWebhookRoutesOptions> = async (
  app,
  options,
) => {
  const headerNames: DeliveryHeaderNames = options.headerNames;
  // Resolved once: the delivery path only looks the headers up (Node lower-cases incoming header names).
  const expectedHeaders = Object.values(headerNames).map((name) => ({
    name,
    key: name.toLowerCase(),
  }));
  takeRawBodies(app);

  app.post(
    WEBHOOK_ROUTE,
    deliveryRouteOptions('Receive a payments provider webhook delivery', options.bodyLimitBytes),
    async (request, reply) => {
      const receivedAt = new Date();
      const body = deliveryText(request.body);
      const headers: Record<string, string> = {};
      const missing: string[] = [];
      for (const { name, key } of expectedHeaders) {
        const value = request.headers[key];
        const text = Array.isArray(value) ? value[0] : value;
        if (text) headers[name] = text;
        else missing.push(name);
      }
      if (missing.length > 0) {
        throw new ApiError('WEBHOOK_DELIVERY_INVALID', `missing delivery headers: ${missing.join(', ')}`, {
          missing,
        });
      }
      const transmissionId = headers[headerNames.transmission_id] as string;
      if (!transmissionIdPattern.test(transmissionId)) {
        throw new ApiError(
          'WEBHOOK_DELIVERY_INVALID',
          `${headerNames.transmission_id}: at most 128 letters, digits, ".", "_", ":" or "-"`,
        );
      }
      assertTransmissionTimely(
        headerNames.transmission_time,
        headers[headerNames.transmission_time] as string,
        receivedAt,
        options.transmissionToleranceMs ?? defaultTransmissionToleranceMs,
      );
      await screen(options.screening, { headers, body });
      return acceptDelivery(request, reply, options, {
        id: transmissionId,
        what: 'transmission',
        received: { headers, body },
        receivedAt,
      });
    },
  );
};

/** A delivery refused by its screening is answered 400 and starts nothing; a transient failure is 503. */
async function screen(
  screening: DeliveryScreening | undefined,
  delivery: { headers: Record<string, string>; body: string },
) {
  if (!screening) return;
  let refusal: string | undefined;
  try {
    refusal = await screening(delivery);
  } catch {
    throw new ApiError('PROVIDER_UNAVAILABLE', 'the delivery cannot be checked now: deliver it again later');
  }
  if (refusal) throw new ApiError('WEBHOOK_DELIVERY_INVALID', refusal);
}

function assertTransmissionTimely(header: string, value: string, receivedAt: Date, toleranceMs: number) {
  const sent = Date.parse(value);
  if (Number.isNaN(sent)) {
    throw new ApiError('WEBHOOK_DELIVERY_INVALID', `${header}: not a date-time such as 2026-05-01T12:00:00Z`);
  }
  const offsetMs = receivedAt.getTime() - sent;
  if (Math.abs(offsetMs) > toleranceMs) {
    const when = offsetMs > 0 ? 'ago' : 'ahead';
    throw new ApiError(
      'WEBHOOK_DELIVERY_INVALID',
      `${header}: ${Math.round(Math.abs(offsetMs) / 1000)} s ${when}, outside the tolerance of ${toleranceMs / 1000} s`,
    );
  }
}
