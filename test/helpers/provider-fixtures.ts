import type { Client } from '@temporalio/client';
import { createPaymentsActivities, createProviderActivities } from '../../src/activities/payments';
import { createWebhookActivities } from '../../src/activities/webhooks';
import type { ApiOptions } from '../../src/api/server';
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

const STRIPE_API_KEY = 'sk_test_sandbox';
const STRIPE_WEBHOOK_SECRET = 'whsec_sandbox';
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

async function json<T>(response: Promise<Response>): Promise<T> {
  const answer = await response;
  const body = (await answer.json()) as T;
  if (!answer.ok) throw new Error(`sandbox answered ${answer.status}: ${JSON.stringify(body)}`);
  return body;
}

function post<T>(url: string, body: unknown): Promise<T> {
  return json<T>(
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
}

/** Cents as a two-decimal string, without floats. */
function fromCents(cents: number): string {
  const text = String(cents).padStart(3, '0');
  return `${text.slice(0, -2)}.${text.slice(-2)}`;
}

/** Two-decimal USD as cents, without floats. */
function toCents(value: string): number {
  const [units = '0', fraction = ''] = value.split('.');
  return Number(units) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2));
}

export const paypalFixture: ProviderFixture = {
  name: 'paypal',
  startSandbox: (options = {}) => startSandbox({ port: 0, logger: false, ...options }),
  async authorize(sandbox, value) {
    const authorization = await post<{ id: string }>(`${sandbox.url}/sandbox/authorizations`, {
      amount: { currency_code: 'USD', value },
    });
    return authorization.id;
  },
  workerEnv: () => ({}),
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
  async captured(sandbox, authorizationId) {
    const { captures } = await json<{ captures: Array<{ id: string; amount: { value: string } }> }>(
      fetch(`${sandbox.url}/sandbox/authorizations/${authorizationId}/captures`),
    );
    const cents = captures.reduce((sum, capture) => sum + toCents(capture.amount.value), 0);
    return { captureIds: captures.map((capture) => capture.id), total: fromCents(cents) };
  },
};

export const stripeFixture: ProviderFixture = {
  name: 'stripe',
  startSandbox: (options = {}) => startSandbox({ port: 0, logger: false, ...options, mode: 'stripe' }),
  async authorize(sandbox, value) {
    const intent = await post<{ id: string }>(`${sandbox.url}/sandbox/payment_intents`, {
      amount: toCents(value),
      currency: 'usd',
    });
    return intent.id;
  },
  workerEnv: (sandbox) => ({ PAYMENTS_PROVIDER: 'stripe', STRIPE_BASE_URL: sandbox.url }),
  provider: (sandbox) =>
    stripeProvider({
      apiKey: STRIPE_API_KEY,
      ...stripeEndpoint(sandbox.url),
      timeoutMs: 2000,
      multicapture: false,
      webhookSecrets: [STRIPE_WEBHOOK_SECRET],
    }),
  activities(sandbox) {
    const provider = this.provider(sandbox);
    return { ...createProviderActivities(provider), ...createWebhookActivities({ provider }) };
  },
  webhookIntake: (client, taskQueue) => ({
    stripeWebhooks: {
      verifications: stripeVerificationStarter(client, taskQueue),
      bodyLimitBytes: WEBHOOK_BODY_LIMIT_BYTES,
      secrets: [STRIPE_WEBHOOK_SECRET],
    },
  }),
  webhookRoute: STRIPE_WEBHOOK_ROUTE,
  // Stripe's webhook endpoints are not managed through the port: the sandbox's control API subscribes.
  subscribe: (sandbox, _client, _taskQueue, listenerUrl) =>
    post(`${sandbox.url}/sandbox/webhooks`, { url: listenerUrl, event_types: [{ name: '*' }] }).then(
      () => undefined,
    ),
  async captured(sandbox, authorizationId) {
    const intent = await json<{ amount_received: number; latest_charge: string | { id: string } | null }>(
      fetch(`${sandbox.url}/v1/payment_intents/${authorizationId}`, {
        headers: { authorization: `Bearer ${STRIPE_API_KEY}` },
      }),
    );
    const charge = typeof intent.latest_charge === 'string' ? intent.latest_charge : intent.latest_charge?.id;
    // A single-capture intent captures at most once, into its charge: the charge's id is the capture's.
    return {
      captureIds: intent.amount_received > 0 && charge ? [charge] : [],
      total: fromCents(intent.amount_received),
    };
  },
};

export const providerFixtures: ProviderFixture[] = [paypalFixture, stripeFixture];
