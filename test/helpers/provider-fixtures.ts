import type { Client } from '@temporalio/client';
import { paypalSandbox, stripeSandbox, subscribeToStripeSandbox } from '../../bench/provider-sandboxes';
import { createPaymentsActivities, createProviderActivities } from '../../src/activities/payments';
import { createWebhookActivities } from '../../src/activities/webhooks';
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
import { stripeVerificationStarter } from '../../src/webhooks/stripe-intake-config';
import { VerificationStarter } from '../../src/webhooks/verification-starter';
import { sandboxProvider } from './lifecycle-stack';

const WEBHOOK_BODY_LIMIT_BYTES = 64 * 1024;

/**
 * What a provider-neutral suite needs to know of one provider: how its sandbox runs, how a payment is
 * authorized there, what the service's worker and API are told of it, and what the provider holds as captured.
 * A suite runs once per fixture (`describe.each(providerFixtures)`), asserting the same guarantees.
 */
export interface ProviderFixture {
  name: ProviderName;
  /** The sandbox in this provider's mode. */
  startSandbox(options?: Omit<SandboxOptions, 'mode'>): Promise<Sandbox>;
  /** A payment authorized at the sandbox for `value` (e.g. '80.00' USD), as the payer's checkout leaves it. */
  authorize(sandbox: Sandbox, value: string): Promise<string>;
  /** The environment of the service's worker process (src/workers/main.ts) calling this provider. */
  workerEnv(sandbox: Sandbox): Record<string, string>;
  /** The provider port over the sandbox, for a worker in the test's process. */
  provider(sandbox: Sandbox): PaymentsProvider;
  /** The worker's activities for this provider's lifecycles and its webhook verifications. */
  activities(sandbox: Sandbox, listenerUrl: string): Record<string, unknown>;
  /** The API's webhook intake for this provider's deliveries. */
  webhookIntake(client: Client, taskQueue: string): Pick<ApiOptions, 'webhooks' | 'stripeWebhooks'>;
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
  workerEnv: (sandbox) => paypalSandbox.serviceEnv(sandbox.url),
  provider: (sandbox) => sandboxProvider(sandbox, undefined, undefined, ['localhost', '127.0.0.1']),
  activities(sandbox, listenerUrl) {
    const provider = this.provider(sandbox);
    return { ...createPaymentsActivities(provider), ...createWebhookActivities({ provider, listenerUrl }) };
  },
  webhookIntake: (client, taskQueue) => ({
    webhooks: {
      verifications: new VerificationStarter({ client, taskQueue, mode: 'api' }),
      bodyLimitBytes: WEBHOOK_BODY_LIMIT_BYTES,
      headerNames: specDialect.transmissionHeaders,
    },
  }),
  webhookRoute: WEBHOOK_ROUTE,
  subscribe: (_sandbox, client, taskQueue, listenerUrl) =>
    ensureSubscription(client, taskQueue, { listenerUrl }).then(() => undefined),
  captured: (sandbox, authorizationId) => paypalSandbox.captured(sandbox.url, authorizationId),
};

export const stripeFixture: ProviderFixture = {
  name: 'stripe',
  startSandbox: (options = {}) => startSandbox({ port: 0, logger: false, ...options, mode: 'stripe' }),
  authorize: (sandbox, value) => stripeSandbox.authorize(sandbox.url, value),
  workerEnv: (sandbox) => stripeSandbox.serviceEnv(sandbox.url),
  provider: (sandbox) =>
    stripeProvider({
      apiKey: SANDBOX_STRIPE_API_KEY,
      ...stripeEndpoint(sandbox.url),
      timeoutMs: 2000,
      multicapture: false,
      webhookSecrets: [SANDBOX_STRIPE_WEBHOOK_SECRET],
    }),
  activities(sandbox) {
    const provider = this.provider(sandbox);
    return { ...createProviderActivities(provider), ...createWebhookActivities({ provider }) };
  },
  webhookIntake: (client, taskQueue) => ({
    stripeWebhooks: {
      verifications: stripeVerificationStarter(client, taskQueue),
      bodyLimitBytes: WEBHOOK_BODY_LIMIT_BYTES,
      secrets: [SANDBOX_STRIPE_WEBHOOK_SECRET],
    },
  }),
  webhookRoute: STRIPE_WEBHOOK_ROUTE,
  subscribe: (sandbox, _client, _taskQueue, listenerUrl) =>
    subscribeToStripeSandbox(sandbox.url, listenerUrl),
  captured: (sandbox, authorizationId) => stripeSandbox.captured(sandbox.url, authorizationId),
};

export const providerFixtures: ProviderFixture[] = [paypalFixture, stripeFixture];
