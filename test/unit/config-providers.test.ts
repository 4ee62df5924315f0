import { ConfigError, loadConfig, productionSettingsOf } from '../../src/config';
import { providerOfStart } from '../../src/provider-names';

const worker = productionSettingsOf.worker;
const api = productionSettingsOf.api;

/** A production worker's settings, PayPal's and the rest, without Stripe's. */
const production = {
  NODE_ENV: 'production',
  PAYPAL_BASE_URL: 'https://api-m.paypal.com',
  PAYPAL_CLIENT_ID: 'prod-client',
  PAYPAL_CLIENT_SECRET: 'prod-secret',
  WEBHOOK_CERT_HOSTS: 'api.paypal.com',
  PAYLOAD_CODEC_KEYS: `prod:${Buffer.alloc(32, 7).toString('base64')}`,
};
/** Signing secrets as long as Stripe issues them: whsec_ and 32 characters. */
const oldSecret = `whsec_${'0ld'.repeat(11)}`;
const newSecret = `whsec_${'N3w'.repeat(11)}`;
const stripe = { STRIPE_API_KEY: 'sk_live_0123456789', STRIPE_WEBHOOK_SECRETS: `${oldSecret},${newSecret}` };

describe('PAYMENTS_PROVIDER and the Stripe settings', () => {
  it('run PayPal alone by default, and Stripe on the sandbox key against api.stripe.com', () => {
    const config = loadConfig({});
    expect(config.PAYMENTS_PROVIDER).toEqual(['paypal']);
    expect(config.STRIPE_BASE_URL).toBeUndefined();
    expect(config.STRIPE_MULTICAPTURE).toBe(false);
    expect(loadConfig({ PAYMENTS_PROVIDER: 'paypal, stripe', STRIPE_MULTICAPTURE: 'true' })).toMatchObject({
      PAYMENTS_PROVIDER: ['paypal', 'stripe'],
      STRIPE_MULTICAPTURE: true,
    });
  });

  it('refuses a provider it does not know, naming the variable', () => {
    expect(() => loadConfig({ PAYMENTS_PROVIDER: 'paypal,adyen' })).toThrow(/PAYMENTS_PROVIDER/);
  });

  it("refuses a production worker on Stripe without the account's live key and signing secrets", () => {
    const onStripe = { ...production, PAYMENTS_PROVIDER: 'paypal,stripe' };
    expect(() => loadConfig(onStripe, worker)).toThrow(/STRIPE_API_KEY: required/);
    expect(() => loadConfig(onStripe, worker)).toThrow(/STRIPE_WEBHOOK_SECRETS: required/);
    expect(() => loadConfig({ ...onStripe, ...stripe, STRIPE_API_KEY: 'sk_test_123' }, worker)).toThrow(
      /STRIPE_API_KEY: not a live key/,
    );
    expect(() =>
      loadConfig({ ...onStripe, ...stripe, STRIPE_BASE_URL: 'http://stripe.test' }, worker),
    ).toThrow(/STRIPE_BASE_URL: https only/);
    expect(loadConfig({ ...onStripe, ...stripe }, worker).STRIPE_WEBHOOK_SECRETS).toEqual([
      oldSecret,
      newSecret,
    ]);
  });

  it("holds a production worker on Stripe alone to Stripe's settings, not PayPal's", () => {
    const env = { NODE_ENV: 'production', PAYMENTS_PROVIDER: 'stripe', ...stripe };
    const config = loadConfig(
      { ...env, WEBHOOK_CERT_HOSTS: 'api.paypal.com', PAYLOAD_CODEC_KEYS: production.PAYLOAD_CODEC_KEYS },
      worker,
    );
    expect(config.PAYMENTS_PROVIDER).toEqual(['stripe']);
    // PayPal's settings are unchecked; a worker on PayPal is still held to them.
    expect(() => loadConfig({ ...production, PAYPAL_CLIENT_SECRET: '' }, worker)).toThrow(
      /PAYPAL_CLIENT_SECRET: required/,
    );
  });
});

describe('STRIPE_WEBHOOK_SECRETS', () => {
  it('is a comma-separated list of endpoint secrets, the sandbox one by default', () => {
    expect(loadConfig({ STRIPE_WEBHOOK_SECRETS: ' whsec_old , whsec_new ' }).STRIPE_WEBHOOK_SECRETS).toEqual([
      'whsec_old',
      'whsec_new',
    ]);
    expect(loadConfig({}).STRIPE_WEBHOOK_SECRETS).toEqual(['whsec_sandbox']);
  });

  it('refuses an entry that is not a whsec_ secret, naming the variable but not the value', () => {
    const refusal = () => loadConfig({ STRIPE_WEBHOOK_SECRETS: 'whsec_a,sk_test_oops' });
    expect(refusal).toThrow(ConfigError);
    expect(refusal).toThrow(/STRIPE_WEBHOOK_SECRETS\.1: an endpoint signing secret, whsec_/);
    expect(refusal).not.toThrow(/sk_test_oops/);
    expect(() => loadConfig({ STRIPE_WEBHOOK_SECRETS: ' , ' })).toThrow(
      /STRIPE_WEBHOOK_SECRETS: at least one/,
    );
  });

  it.each([
    ['worker', worker],
    ['API', api],
  ])('in production, the %s on Stripe refuses secrets shorter than Stripe issues', (_process, uses) => {
    const env = {
      ...production,
      API_KEYS: 'k'.repeat(32),
      PAYMENTS_PROVIDER: 'paypal,stripe',
      ...stripe,
    };
    expect(() => loadConfig({ ...env, STRIPE_WEBHOOK_SECRETS: `${newSecret},whsec_short` }, uses)).toThrow(
      /STRIPE_WEBHOOK_SECRETS: 1 of 2 secrets are shorter than Stripe issues \(whsec_ and at least 24 more/,
    );
    expect(() => loadConfig({ ...env, STRIPE_WEBHOOK_SECRETS: 'whsec_sandbox' }, uses)).toThrow(
      /STRIPE_WEBHOOK_SECRETS: required when PAYMENTS_PROVIDER names stripe/,
    );
    expect(() => loadConfig({ ...env, STRIPE_WEBHOOK_SECRETS: '' }, uses)).toThrow(
      /STRIPE_WEBHOOK_SECRETS: required/,
    );
    expect(loadConfig(env, uses).STRIPE_WEBHOOK_SECRETS).toEqual([oldSecret, newSecret]);
    // Without Stripe the secrets are not read: the sandbox default stands.
    expect(
      loadConfig({ ...env, PAYMENTS_PROVIDER: 'paypal', STRIPE_WEBHOOK_SECRETS: '' }, uses),
    ).toBeTruthy();
  });
});

describe('the provider of a start', () => {
  it('is the one named, else Stripe for a PaymentIntent id, else PayPal', () => {
    expect(providerOfStart({ authorizationId: 'pi_123' })).toBe('stripe');
    expect(providerOfStart({ authorizationId: '8AB12345CD' })).toBe('paypal');
    expect(providerOfStart({ authorizationId: 'X1', provider: 'stripe' })).toBe('stripe');
  });
});
