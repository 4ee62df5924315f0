import { stripeSignatureHeader } from '../../providers/stripe/webhook-signature';
import type { SandboxContext } from '../context';
import type { SandboxMode, SandboxModeFactory } from '../mode';
import { StripeBooks } from './books';
import { invalidRequest, stripeErrorBody } from './errors';
import { stripeEnabledEventNames } from './event-names';
import { stripeEvent } from './events';
import { StripeIdempotency } from './idempotency';
import { registerStripeRoutes } from './routes';
import { registerStripeControlRoutes } from './routes-control';
import { newWebhookEndpointId, StripeWebhookEndpoints } from './webhook-endpoints';

export interface StripeSandboxOptions {
  /**
   * The webhook endpoints' signing secrets; each delivery carries a v1 signature by each (a rotation). An
   * endpoint created through /v1/webhook_endpoints is shown the last one as its `secret`.
   */
  stripeWebhookSecrets?: string[];
  /** How long a Stripe Idempotency-Key is kept: Stripe's 24 hours unless a test shortens it. */
  stripeKeyRetentionMs?: number;
}

export const DEFAULT_STRIPE_WEBHOOK_SECRET = 'whsec_sandbox';

/** The PayPal-shaped records of the core's control routes: the Stripe mode keeps its own books. */
function notInThisMode(): never {
  throw invalidRequest(
    'The Stripe mode keeps PaymentIntents: use /sandbox/payment_intents, /sandbox/charges/:id/dispute.',
    'resource_missing',
  );
}

/**
 * Stripe's contract: manual-capture PaymentIntents, charges, refunds and disputes in its own books, Stripe's
 * errors and idempotency, events signed with Stripe-Signature; the core's faults, deliveries and webhooks.
 */
export const stripeSandboxMode: SandboxModeFactory<StripeSandboxOptions> = async (
  core: SandboxContext,
  options: StripeSandboxOptions,
): Promise<SandboxMode> => {
  const secrets = options.stripeWebhookSecrets ?? [DEFAULT_STRIPE_WEBHOOK_SECRET];
  const books = new StripeBooks({
    now: core.now,
    onEvent: (event) => core.deliveries.publish(stripeEvent(event, core.now())),
  });
  const idempotency = new StripeIdempotency(core.now, options.stripeKeyRetentionMs);
  const endpoints = new StripeWebhookEndpoints(core.webhooks, {
    now: core.now,
    signingSecret: secrets[secrets.length - 1]!,
  });
  return {
    registerRoutes: async (app) => {
      registerStripeControlRoutes(app, books);
      await registerStripeRoutes(app, { core, books, idempotency, endpoints });
    },
    authorizationResource: notInThisMode,
    captureResource: notInThisMode,
    refundResource: notInThisMode,
    webhookResource: (record) => endpoints.resource(record),
    newWebhookId: newWebhookEndpointId,
    eventTypeNames: (list, field) =>
      list.map(({ name }) => {
        if (stripeEnabledEventNames.has(name)) return name;
        throw invalidRequest(`Invalid enabled_events: ${name}`, 'parameter_invalid', field);
      }),
    deliveryEvent: () => notInThisMode(),
    signDelivery: (transmission) => ({
      'Stripe-Signature': stripeSignatureHeader(
        transmission.body.toString('utf8'),
        secrets,
        Math.floor(Date.parse(transmission.transmissionTime) / 1000),
      ),
    }),
    errorBody: stripeErrorBody,
    deliveryVerification: () => ({ certificateUrl: '', certificatePem: '' }),
  };
};
