import type { Client } from '@temporalio/client';
import { createPaymentsWorkerActivities } from '../../src/activities';
import {
  fromCents,
  paypalSandbox,
  postJson,
  stripeSandbox,
  subscribeToStripeSandbox,
  toCents,
} from '../../bench/provider-sandboxes';
import type { ApiOptions } from '../../src/api/server';
import { SANDBOX_STRIPE_API_KEY, SANDBOX_STRIPE_WEBHOOK_SECRET } from '../../src/config';
import type { ProviderName } from '../../src/provider-names';
import { specDialect } from '../../src/providers/paypal/dialects';
import type { PaymentsProvider } from '../../src/providers/port';
import { stripeEndpoint } from '../../src/providers/stripe/client';
import { stripeProvider } from '../../src/providers/stripe/provider';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/server';
import { ensureSubscription } from '../../src/webhooks/ensure-subscription';
import { STRIPE_WEBHOOK_ROUTE, WEBHOOK_ROUTE } from '../../src/webhooks/listener-url';
import { VerificationStarter } from '../../src/webhooks/verification-starter';
import { sandboxProvider } from './lifecycle-stack';
import { paypalWebhooks, stripeVerificationStarter, stripeWebhooks } from './webhook-intakes';

/**
 * What a provider-neutral suite needs to know of one provider: how its sandbox runs, how a payment is
 * authorized there, what the service's worker and API are told of it, and what the provider holds as captured.
 * A suite runs once per fixture (`describe.each(providerFixtures)`), asserting the same guarantees.
 */
export interface ProviderFixture {
  name: ProviderName;
  /** The sandbox in this provider's mode. */
  startSandbox(options?: Omit<SandboxOptions, 'mode'>): Promise<Sandbox>;
  /**
   * A payment authorized at the sandbox for `value` (e.g. '80.00' USD), as the payer's checkout leaves it.
   * `severalCaptures` asks for an authorization that takes several partial captures (PayPal's always do;
   * on Stripe, a multicapture intent); without it a Stripe intent takes one capture.
   */
  authorize(sandbox: Sandbox, value: string, options?: { severalCaptures?: boolean }): Promise<string>;
  /** The hold runs out at the provider (the sandbox's control route). */
  expire(sandbox: Sandbox, authorizationId: string): Promise<void>;
  /**
   * The payer's bank disputes the capture (the lifecycle's capture id): a chargeback, which the provider
   * delivers as an event. Answers the id the lifecycle records it under (PayPal's reversal, Stripe's dispute).
   */
  chargeback(sandbox: Sandbox, captureId: string): Promise<string>;
  /** What the provider has refunded of the capture (the lifecycle's capture id), e.g. '30.00'. */
  refunded(sandbox: Sandbox, captureId: string): Promise<string>;
  /** The environment of the service's worker process (src/workers/main.ts) calling this provider. */
  workerEnv(sandbox: Sandbox): Record<string, string>;
  /** The provider port over the sandbox, for a worker in the test's process. */
  provider(sandbox: Sandbox): PaymentsProvider;
  /** The worker's activities for this provider's lifecycles and its webhook verifications. */
  activities(sandbox: Sandbox, listenerUrl: string): Record<string, unknown>;
  /** The API's webhook intake for this provider's deliveries. */
  webhookIntake(client: Client, taskQueue: string): Pick<ApiOptions, 'webhooks'>;
  /** Where the API takes this provider's deliveries. */
  webhookRoute: string;
  /** Has the sandbox deliver this provider's events to `listenerUrl`. */
  subscribe(sandbox: Sandbox, client: Client, taskQueue: string, listenerUrl: string): Promise<void>;
  /** What the provider holds as captured on the authorization: the capture ids and the total. */
  captured(sandbox: Sandbox, authorizationId: string): Promise<{ captureIds: string[]; total: string }>;
}

export const paypalFixture: ProviderFixture = {
  name: 'paypal',
  startSandbox: (options = {}) => startSandbox({ port: 0, logger: false, ...options }),
  authorize: (sandbox, value) => paypalSandbox.authorize(sandbox.url, value),
  expire: (sandbox, authorizationId) =>
    postJson(`${sandbox.url}/sandbox/authorizations/${authorizationId}/expire`, {}).then(() => undefined),
  chargeback: (sandbox, captureId) =>
    postJson<{ id: string }>(`${sandbox.url}/sandbox/captures/${captureId}/reverse`, {}).then(
      (reversal) => reversal.id,
    ),
  async refunded(sandbox, captureId) {
    const response = await fetch(`${sandbox.url}/sandbox/captures/${captureId}/refunds`);
    const { refunds } = (await response.json()) as { refunds: Array<{ amount: { value: string } }> };
    return fromCents(refunds.reduce((sum, refund) => sum + toCents(refund.amount.value), 0));
  },
  workerEnv: (sandbox) => paypalSandbox.serviceEnv(sandbox.url),
  provider: (sandbox) => sandboxProvider(sandbox, undefined, undefined, ['localhost', '127.0.0.1']),
  activities(sandbox, listenerUrl) {
    const provider = this.provider(sandbox);
    return createPaymentsWorkerActivities({ provider, webhooks: { listenerUrl } });
  },
  webhookIntake: (client, taskQueue) => ({
    webhooks: paypalWebhooks(
      new VerificationStarter({ client, taskQueue, mode: 'api', provider: 'paypal' }),
      specDialect.transmissionHeaders,
    ),
  }),
  webhookRoute: WEBHOOK_ROUTE,
  subscribe: (_sandbox, client, taskQueue, listenerUrl) =>
    ensureSubscription(client, taskQueue, { listenerUrl }).then(() => undefined),
  captured: (sandbox, authorizationId) => paypalSandbox.captured(sandbox.url, authorizationId),
};

export const stripeFixture: ProviderFixture = {
  name: 'stripe',
  startSandbox: (options = {}) => startSandbox({ port: 0, logger: false, ...options, mode: 'stripe' }),
  authorize: (sandbox, value, options = {}) =>
    options.severalCaptures
      ? postJson<{ id: string }>(`${sandbox.url}/sandbox/payment_intents`, {
          amount: toCents(value),
          currency: 'usd',
          multicapture: true,
        }).then((intent) => intent.id)
      : stripeSandbox.authorize(sandbox.url, value),
  expire: (sandbox, authorizationId) =>
    postJson(`${sandbox.url}/sandbox/payment_intents/${authorizationId}/expire`, {}).then(() => undefined),
  chargeback: (sandbox, captureId) =>
    postJson<{ id: string }>(`${sandbox.url}/sandbox/charges/${chargeOf(captureId)}/dispute`, {}).then(
      (dispute) => dispute.id,
    ),
  async refunded(sandbox, captureId) {
    const response = await fetch(`${sandbox.url}/v1/charges/${chargeOf(captureId)}`, {
      headers: { authorization: `Bearer ${SANDBOX_STRIPE_API_KEY}` },
    });
    return fromCents(((await response.json()) as { amount_refunded: number }).amount_refunded);
  },
  workerEnv: (sandbox) => stripeSandbox.serviceEnv(sandbox.url),
  provider: (sandbox) =>
    stripeProvider({
      apiKey: SANDBOX_STRIPE_API_KEY,
      ...stripeEndpoint(sandbox.url),
      timeoutMs: 2000,
      // Intents with multicapture use it; the others take one capture, as on an account that asks for it.
      multicapture: true,
      webhookSecrets: [SANDBOX_STRIPE_WEBHOOK_SECRET],
    }),
  activities(sandbox) {
    const provider = this.provider(sandbox);
    return createPaymentsWorkerActivities({ provider });
  },
  webhookIntake: (client, taskQueue) => ({
    webhooks: stripeWebhooks(stripeVerificationStarter(client, taskQueue), [SANDBOX_STRIPE_WEBHOOK_SECRET]),
  }),
  webhookRoute: STRIPE_WEBHOOK_ROUTE,
  subscribe: (sandbox, _client, _taskQueue, listenerUrl) =>
    subscribeToStripeSandbox(sandbox.url, listenerUrl).then(() => undefined),
  captured: (sandbox, authorizationId) => stripeSandbox.captured(sandbox.url, authorizationId),
};

/** The charge a Stripe capture went into: the lifecycle numbers a multicapture charge's captures `<charge>-<n>`. */
function chargeOf(captureId: string): string {
  return captureId.replace(/-\d+$/, '');
}

export const providerFixtures: ProviderFixture[] = [paypalFixture, stripeFixture];
