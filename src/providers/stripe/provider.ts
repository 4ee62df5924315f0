import Stripe from 'stripe';
import type { Authorization, Money } from '../resources';
import { ProviderError, type PaymentsProvider, type ProviderCapabilities } from '../port';
import { stripeClient, type StripeClientOptions } from './client';
import { classified } from './failures';
import { readStripeHoldings } from './holdings';
import { stripeIdempotencyKey, type StripeOperation } from './keys';
import { toStripeAmount } from './money';
import { parseStripeEvent, stripeLifecycleEventTypes } from './payment-event';
import { REAUTHORIZES_METADATA, notReplaceable, replacementChoice, replaces } from './replacement';
import { authorizationOf, captureOf, latestCharge, refundOf } from './resources';
import { STRIPE_SIGNATURE_HEADER, verifyStripeSignature } from './webhook-signature';

const STRIPE_KEY_RETENTION_MS = 24 * 60 * 60 * 1000;
const NO_AGE_CHECK = 0;
const expandCharge = ['latest_charge'];

export interface StripeProviderOptions extends StripeClientOptions {
  /**
   * Whether the account's intents are created with multicapture (`request_multicapture`): then a capture
   * with final_capture=false keeps the rest held, up to 50 captures; otherwise one capture releases the rest.
   */
  multicapture?: boolean;
  /** The endpoint's signing secrets (whsec_…): during a rotation the old and the new. */
  webhookSecrets: readonly string[];
  /**
   * How long Stripe keeps an idempotency key: 24 hours. Only tests shorten it (with the sandbox's
   * stripeKeyRetentionMs); configuration never sets it.
   */
  keyRetentionMs?: number;
}

/** The metadata a capture or refund carries its idempotency key in, so that it can be found by it later. */
export const LIFECYCLE_KEY_METADATA = 'lifecycle_key';

export function stripeCapabilities(
  multicapture: boolean,
  keyRetentionMs = STRIPE_KEY_RETENTION_MS,
): ProviderCapabilities {
  return {
    multipleCaptures: multicapture,
    // Overcapture is a card feature Stripe reports per charge (the authorization's capture_maximum).
    overCapturePercent: 0,
    extendedAuthorization: true,
    reauthorization: 'new-authorization',
    // Stripe may prune a key after 24 hours.
    idempotencyKeyRetentionMs: keyRetentionMs,
    maxCaptures: multicapture ? 50 : 1,
    capturesEndAtMax: true,
    // Every capture of a multicapture intent goes into its one charge: the charge id is each one's.
    ...(multicapture && { sharedCaptureIds: true }),
  };
}

/** Stripe's amount for the lifecycle's money, refused before sending when Stripe cannot write it. */
function stripeAmount(money: Money): { amount: number; currency: string } {
  const amount = toStripeAmount(money);
  if (amount) return amount;
  throw new ProviderError({
    message: `${money.value} ${money.currency_code} is not a whole number of Stripe's smallest unit`,
    type: 'amount_invalid',
    retryable: false,
    details: [],
  });
}

function keyed(operation: StripeOperation, key: string | undefined): Stripe.RequestOptions {
  return key ? { idempotencyKey: stripeIdempotencyKey(operation, key) } : {};
}

/** Stripe's refusal of an action the intent's status does not allow (e.g. a cancel of a canceled intent). */
function unexpectedState(error: unknown): boolean {
  return (
    error instanceof Stripe.errors.StripeInvalidRequestError &&
    error.code === 'payment_intent_unexpected_state'
  );
}

/**
 * Stripe's manual-capture PaymentIntents behind the port, over the official SDK. Every POST carries an
 * idempotency key derived from the caller's per operation; a reauthorization is a new intent on the saved
 * payment method, then a cancel of the old one, taken only when the old one can be canceled and released at
 * once when it could not be; an intent that already replaces the old one (a retry whose answer was lost,
 * however late) is adopted rather than made again (replacement.ts), so neither a retry nor a refusal leaves
 * two holds.
 */
export function stripeProvider(options: StripeProviderOptions): PaymentsProvider {
  const stripe = stripeClient(options);
  const multicapture = options.multicapture ?? false;
  const retention = options.keyRetentionMs;

  const cancel = async (intentId: string, key: string | undefined, operation: StripeOperation) => {
    try {
      return await stripe.paymentIntents.cancel(intentId, { expand: expandCharge }, keyed(operation, key));
    } catch (error) {
      if (!unexpectedState(error)) throw error;
      // A void finds its own work done when the intent is already canceled (a retry whose answer was lost).
      const intent = await stripe.paymentIntents.retrieve(intentId, { expand: expandCharge });
      if (intent.status !== 'canceled') throw error;
      return intent;
    }
  };

  // The intents that already reauthorize `previous`, newest first: the payer's made since it (Stripe lists by
  // customer and creation time; an intent without a customer is looked for among all made since).
  const replacementsOf = async (previous: Stripe.PaymentIntent) => {
    const customer = idOf(previous.customer);
    const found: Stripe.PaymentIntent[] = [];
    const listed = stripe.paymentIntents.list({
      ...(customer && { customer }),
      created: { gte: previous.created },
      limit: 100,
      expand: ['data.latest_charge'],
    });
    for await (const intent of listed) if (replaces(intent, previous)) found.push(intent);
    return found;
  };

  return {
    name: 'stripe',
    capabilities: stripeCapabilities(multicapture, retention),
    // Stripe sends only Stripe-Signature: no transmission id or time header. The webhook intake, which reads
    // these two, still has to take a Stripe delivery's id from its event id and its time from the `t=`.
    deliveryHeaders: {
      signature: STRIPE_SIGNATURE_HEADER,
      transmission_id: STRIPE_SIGNATURE_HEADER,
      transmission_time: STRIPE_SIGNATURE_HEADER,
    },

    lifecycleEventTypes: stripeLifecycleEventTypes,

    // An account that asks for multicapture gets it only on cards that allow it: the intent's charge says.
    capabilitiesOf: (authorization) => ({
      ...stripeCapabilities(
        multicapture && cardCapability(authorization, 'multicapture') === 'available',
        retention,
      ),
      incrementalAuthorization: cardCapability(authorization, 'incremental_authorization') === 'available',
    }),

    getAuthorization: (authorizationId) =>
      classified(async () =>
        authorizationOf(await stripe.paymentIntents.retrieve(authorizationId, { expand: expandCharge })),
      ),

    captureAuthorization: (request) =>
      classified(async () => {
        const { amount } = stripeAmount(request.amount);
        const intent = await stripe.paymentIntents.capture(
          request.authorizationId,
          {
            amount_to_capture: amount,
            ...(multicapture && !request.finalCapture && { final_capture: false }),
            metadata: keyedMetadata(request),
            expand: expandCharge,
          },
          keyed('capture', request.idempotencyKey),
        );
        const charge = latestCharge(intent);
        if (!charge) throw new Error(`Stripe's capture of ${intent.id} answered no charge`);
        return captureOf(charge, { amount, finalCapture: intent.status !== 'requires_capture' });
      }),

    voidAuthorization: (request) =>
      classified(async () =>
        authorizationOf(await cancel(request.authorizationId, request.idempotencyKey, 'cancel')),
      ),

    incrementAuthorization: (request) =>
      classified(async () => {
        const { amount } = stripeAmount(request.amount);
        const intent = await stripe.paymentIntents.incrementAuthorization(
          request.authorizationId,
          { amount, expand: expandCharge },
          keyed('increment', request.idempotencyKey),
        );
        return authorizationOf(intent);
      }),

    reauthorizeAuthorization: (request) =>
      classified(async () => {
        const previous = await stripe.paymentIntents.retrieve(request.authorizationId, {
          expand: expandCharge,
        });
        const key = request.idempotencyKey;
        const choice = replacementChoice(
          previous,
          await replacementsOf(previous),
          stripeAmount(request.amount),
        );
        // A replacement that is not adopted is a second hold the lifecycle does not know: released first.
        for (const intent of choice.release) {
          await cancel(intent.id, key && `${key}/${intent.id}`, 'reauthorize-cancel-found');
        }
        if (choice.action === 'refuse') throw choice.error;
        // The new hold takes captures as the one it replaces did: the lifecycle keeps the capture rules it
        // started with (one capture, or several into a shared charge) across its reauthorizations.
        const held = authorizationOf(previous);
        const features = {
          multicapture: multicapture && cardCapability(held, 'multicapture') === 'available',
          overcapture: held.capture_maximum !== undefined,
          extendedAuthorization:
            request.extendedAuthorization === true ||
            cardCapability(held, 'extended_authorization') === 'enabled',
        };
        const renewed =
          choice.action === 'adopt'
            ? choice.intent
            : await stripe.paymentIntents.create(
                reauthorizationParams(previous, request.amount, features),
                keyed('reauthorize-create', key),
              );
        try {
          if (previous.status !== 'canceled') await cancel(previous.id, key, 'reauthorize-cancel-previous');
        } catch (error) {
          if (!unexpectedState(error)) throw error;
          // The previous hold was captured between the read and the cancel: the new one cannot replace it.
          await cancel(renewed.id, key, 'reauthorize-cancel-new');
          throw notReplaceable(previous.id, 'was captured before its cancel, and the new hold was released');
        }
        return authorizationOf(renewed);
      }),

    refundCapture: (request) =>
      classified(async () =>
        refundOf(
          await stripe.refunds.create(
            {
              charge: request.captureId,
              ...(request.amount && { amount: stripeAmount(request.amount).amount }),
              metadata: keyedMetadata(request),
            },
            keyed('refund', request.idempotencyKey),
          ),
        ),
      ),

    // A capture's key is in its intent's metadata, which each capture of a multicapture intent overwrites:
    // the intent found under the key took it; one that captured nothing took nothing; otherwise Stripe
    // cannot tell whether an earlier capture was this one.
    findCapture: (request) =>
      classified(async () => {
        const intent = await stripe.paymentIntents.retrieve(request.authorizationId, {
          expand: expandCharge,
        });
        const charge = latestCharge(intent);
        if (charge && intent.metadata?.[LIFECYCLE_KEY_METADATA] === request.idempotencyKey) {
          const { amount } = stripeAmount(request.amount);
          return { found: captureOf(charge, { amount, finalCapture: intent.status !== 'requires_capture' }) };
        }
        if (intent.amount_received === 0) return { found: null };
        return {
          unknown: `${intent.id} captured ${intent.amount_received} in all and its last capture was sent under another key`,
        };
      }),

    // Every refund of the charge is listed, each with the key it was sent under.
    findRefund: (request) =>
      classified(async () => {
        for await (const refund of stripe.refunds.list({ charge: request.captureId, limit: 100 })) {
          if (refund.metadata?.[LIFECYCLE_KEY_METADATA] === request.idempotencyKey) {
            return { found: refundOf(refund) };
          }
        }
        return { found: null };
      }),

    getCapture: (captureId) => classified(async () => captureOf(await stripe.charges.retrieve(captureId))),
    getRefund: (refundId) => classified(async () => refundOf(await stripe.refunds.retrieve(refundId))),
    readHoldings: (request) => classified(() => readStripeHoldings(stripe, request)),
    parsePaymentEvent: parseStripeEvent,

    // Stripe has no verification endpoint: both modes check the signature here. The age of `t=` is checked
    // once, by the intake on receipt (src/api/stripe-webhook-routes.ts), which starts no run for a stale one;
    // the run that verifies later (after a worker outage, say) checks the signature alone, so a delivery the
    // intake acknowledged is never refused for the time it waited in Temporal.
    verifyDelivery: async (delivery) =>
      verifyStripeSignature(delivery, options.webhookSecrets, new Date(), NO_AGE_CHECK),
  };
}

/** The key the request is sent under, and its invoice id when it has one. */
function keyedMetadata(request: { idempotencyKey: string; invoiceId?: string }): Record<string, string> {
  return {
    [LIFECYCLE_KEY_METADATA]: request.idempotencyKey,
    ...(request.invoiceId && { invoice_id: request.invoiceId }),
  };
}

/** What the new hold of a reauthorization asks of the card, where the card allows it. */
export type RenewedHoldFeatures = {
  multicapture?: boolean;
  overcapture?: boolean;
  extendedAuthorization?: boolean;
};

/**
 * The new PaymentIntent that holds `amount` again: the previous one's saved card, off-session, confirmed at
 * once, captured manually, asking for what `features` names (multicapture and overcapture when the previous
 * hold had them; an extended authorization when the lifecycle asks or the previous hold had one).
 */
export function reauthorizationParams(
  previous: Stripe.PaymentIntent,
  amount: Money,
  features: RenewedHoldFeatures,
): Stripe.PaymentIntentCreateParams {
  const paymentMethod = idOf(previous.payment_method);
  if (!paymentMethod) {
    throw new ProviderError({
      message: `${previous.id} has no saved payment method to authorize again`,
      type: 'payment_method_missing',
      retryable: false,
      details: [],
    });
  }
  const customer = idOf(previous.customer);
  const requested = {
    ...(features.multicapture && { request_multicapture: 'if_available' as const }),
    ...(features.overcapture && { request_overcapture: 'if_available' as const }),
    ...(features.extendedAuthorization && { request_extended_authorization: 'if_available' as const }),
  };
  const card = Object.keys(requested).length > 0 ? requested : undefined;
  return {
    ...stripeAmount(amount),
    payment_method: paymentMethod,
    ...(customer && { customer }),
    capture_method: 'manual',
    confirm: true,
    off_session: true,
    ...(card && { payment_method_options: { card } }),
    metadata: { ...previous.metadata, [REAUTHORIZES_METADATA]: previous.id },
    expand: expandCharge,
  };
}

/** A status the intent's charge reports of what the card allows (authorizationOf's card_capabilities). */
function cardCapability(
  authorization: Authorization,
  name: 'multicapture' | 'incremental_authorization' | 'extended_authorization',
): unknown {
  const capabilities = authorization.card_capabilities as Record<string, unknown> | undefined;
  return capabilities?.[name];
}

function idOf(value: string | { id: string } | null | undefined): string | undefined {
  if (!value) return undefined;
  return typeof value === 'string' ? value : value.id;
}
