import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { STRIPE_WEBHOOK_ROUTE } from '../webhooks/listener-url';
import {
  readStripeSignatureHeader,
  signedByEndpoint,
  STRIPE_SIGNATURE_HEADER,
  STRIPE_SIGNATURE_TOLERANCE_SECONDS,
} from '../webhooks/stripe-signature';
import type { VerificationStarter } from '../webhooks/verification-starter';
import { acceptDelivery, deliveryRouteOptions, deliveryText, takeRawBodies } from './delivery-intake';
import type { DeliveryBudgets } from './delivery-budgets';
import { ApiError } from './errors';

export interface StripeWebhookRoutesOptions {
  /** Starts the run of an event id; build it with stripeVerificationStarter (it names the endpoint). */
  verifications: VerificationStarter;
  bodyLimitBytes: number;
  /** What a delivery past the cheap checks spends (the API builds them). */
  budgets: DeliveryBudgets;
  /** The endpoint's signing secrets (whsec_…): during a rotation the old and the new. */
  secrets: readonly string[];
  /** How far `t=` may be from now (Stripe's 300 s unless given). */
  toleranceSeconds?: number;
}

// Stripe's event ids: evt_ and letters or digits.
const eventIdPattern = /^evt_[A-Za-z0-9]{1,124}$/;
const signatureKey = STRIPE_SIGNATURE_HEADER.toLowerCase();

/**
 * POST /webhooks/stripe: Stripe's deliveries carry one header, `Stripe-Signature: t=…,v1=…`. The delivery's
 * id is its event's `id` (Stripe sends an event again under the same id), its time the signature's `t=`.
 * The signature is checked here, by HMAC with the endpoint's secrets, so a forgery starts no run; the run
 * checks it again in the worker and signals the event into its lifecycle, as for PayPal's deliveries.
 */
export const stripeWebhookRoutes: FastifyPluginAsyncZod<StripeWebhookRoutesOptions> = async (
  app,
  options,
) => {
  if (options.secrets.length === 0) throw new Error('the Stripe webhook intake needs an endpoint secret');
  const toleranceSeconds = options.toleranceSeconds ?? STRIPE_SIGNATURE_TOLERANCE_SECONDS;
  takeRawBodies(app);

  app.post(
    STRIPE_WEBHOOK_ROUTE,
    deliveryRouteOptions('Receive a Stripe webhook delivery', options.bodyLimitBytes),
    async (request, reply) => {
      const receivedAt = new Date();
      const body = deliveryText(request.body);
      const value = request.headers[signatureKey];
      const header = Array.isArray(value) ? value[0] : value;
      if (!header) {
        const missing = [STRIPE_SIGNATURE_HEADER];
        throw new ApiError('WEBHOOK_DELIVERY_INVALID', `missing delivery headers: ${missing.join(', ')}`, {
          missing,
        });
      }
      const signature = readStripeSignatureHeader(header);
      if (typeof signature === 'string') {
        throw new ApiError('WEBHOOK_DELIVERY_INVALID', `${STRIPE_SIGNATURE_HEADER}: ${signature}`);
      }
      assertSignedRecently(signature.timestamp, receivedAt, toleranceSeconds);
      if (!signedByEndpoint(signature, body, options.secrets)) {
        throw new ApiError(
          'WEBHOOK_DELIVERY_INVALID',
          `${STRIPE_SIGNATURE_HEADER}: no v1 signature matches the body under the endpoint's secrets`,
        );
      }
      const eventId = eventIdOf(body);
      return acceptDelivery(request, reply, options, {
        id: eventId,
        what: 'event',
        received: { headers: { [STRIPE_SIGNATURE_HEADER]: header }, body },
        receivedAt,
      });
    },
  );
};

/** A signature made further than the tolerance from now is refused before any run starts (a replay). */
function assertSignedRecently(timestamp: number, receivedAt: Date, toleranceSeconds: number) {
  const offsetSeconds = Math.round(receivedAt.getTime() / 1000 - timestamp);
  if (Math.abs(offsetSeconds) <= toleranceSeconds) return;
  const when = offsetSeconds > 0 ? 'ago' : 'ahead';
  throw new ApiError(
    'WEBHOOK_DELIVERY_INVALID',
    `${STRIPE_SIGNATURE_HEADER}: t= is ${Math.abs(offsetSeconds)} s ${when}, outside the tolerance of ${toleranceSeconds} s`,
  );
}

/** The event's `id`: one run per event, however often Stripe delivers it. */
function eventIdOf(body: string): string {
  const id = (JSON.parse(body) as { id?: unknown } | null)?.id;
  if (typeof id !== 'string' || !eventIdPattern.test(id)) {
    throw new ApiError('WEBHOOK_DELIVERY_INVALID', 'the delivery body is not a Stripe event: no id evt_…');
  }
  return id;
}
