import { createActivities } from '../../src/activities';
import { charactersClientFromConfig } from '../../src/characters/client';
import { loadConfig } from '../../src/config';
import { paypalProviderFromConfig, stripeProviderFromConfig } from '../../src/providers/registry';
import { stripeSignatureHeader } from '../../src/providers/stripe/webhook-signature';
import type { SignatureCheck } from '../../src/providers/events';

// What a worker hosts per configured provider: each provider's webhook calls under the names a delivery's run
// schedules them by (PayPal's under their own, Stripe's as stripe.…), so a run is never checked by another's.

const config = loadConfig({});
const paypal = paypalProviderFromConfig(config, 'http://127.0.0.1:9');
const stripe = stripeProviderFromConfig(config, 'http://127.0.0.1:9');
const hosting = (...providers: (typeof paypal)[]) =>
  createActivities({
    provider: providers[0]!,
    providers,
    characters: charactersClientFromConfig(config),
    webhooks: {},
  }) as Record<string, unknown>;

type Verify = (input: unknown) => Promise<SignatureCheck>;

const body = JSON.stringify({ id: 'evt_1', object: 'event' });
const stripeDelivery = {
  delivery: {
    headers: {
      'Stripe-Signature': stripeSignatureHeader(body, config.STRIPE_WEBHOOK_SECRETS, 1_780_000_000),
    },
    body,
  },
  webhookId: 'stripe-endpoint',
};

describe("a worker's webhook calls per provider", () => {
  it('hosts each provider’s under its names, and the event routing once, under its own', () => {
    const names = Object.keys(hosting(paypal, stripe));
    for (const call of ['verifyWebhookSignatureLocally', 'parsePaymentEvent', 'authorizationOfCapture']) {
      expect(names).toContain(`paypal.${call}`);
      expect(names).toContain(`stripe.${call}`);
      expect(names).not.toContain(call);
    }
    expect(names).toContain('signalPaymentEvent');
    expect(names).not.toContain('stripe.signalPaymentEvent');
  });

  it('leaves the other provider’s deliveries unhosted: a PayPal worker has no stripe.…, a Stripe one no PayPal calls', () => {
    const onPaypal = Object.keys(hosting(paypal));
    expect(onPaypal.filter((name) => name.startsWith('stripe.'))).toEqual([]);
    const onStripe = Object.keys(hosting(stripe));
    expect(onStripe).toContain('stripe.verifyWebhookSignatureLocally');
    expect(onStripe.filter((name) => name.startsWith('paypal.'))).toEqual([]);
    expect(onStripe).not.toContain('parsePaymentEvent');
    // Routing into lifecycles asks no provider: every worker hosts it.
    expect(onStripe).toContain('reopenLifecycleForEvent');
  });

  it("checks a Stripe delivery with Stripe's secrets under stripe.…, never with PayPal's adapter", async () => {
    const activities = hosting(paypal, stripe);
    const byStripe = await (activities['stripe.verifyWebhookSignatureLocally'] as Verify)(stripeDelivery);
    expect(byStripe.verification_status).toBe('SUCCESS');
    const byPaypal = await (activities['paypal.verifyWebhookSignatureLocally'] as Verify)(
      stripeDelivery,
    ).catch((error: Error) => ({ verification_status: `refused: ${error.message}` }));
    expect(byPaypal.verification_status).not.toBe('SUCCESS');
  });
});
