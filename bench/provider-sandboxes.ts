import { SANDBOX_STRIPE_API_KEY } from '../src/config';
import type { ProviderName } from '../src/provider-names';
import { subscribeStripeEndpoint } from '../src/providers/registry';

// Each provider's sandbox as the payer's checkout and the books see it, over HTTP: benchmarks and the
// provider-neutral suites (test/helpers/provider-fixtures.ts) drive it through these.

export interface ProviderSandbox {
  name: ProviderName;
  /** A payment authorized at the sandbox for `value` USD (e.g. '80.00'), as the payer's checkout leaves it. */
  authorize(sandboxUrl: string, value: string): Promise<string>;
  /** What the service's worker and API are told of this provider, besides the wiring they share. */
  serviceEnv(sandboxUrl: string): Record<string, string>;
  /** What the provider holds as captured on the authorization: the capture ids and the total. */
  captured(sandboxUrl: string, authorizationId: string): Promise<{ captureIds: string[]; total: string }>;
}

async function json<T>(response: Promise<Response>): Promise<T> {
  const answer = await response;
  const body = (await answer.json()) as T;
  if (!answer.ok) throw new Error(`sandbox answered ${answer.status}: ${JSON.stringify(body)}`);
  return body;
}

export function postJson<T>(url: string, body: unknown): Promise<T> {
  return json<T>(
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
}

/** Cents as a two-decimal string, without floats. */
export function fromCents(cents: number): string {
  const text = String(cents).padStart(3, '0');
  return `${text.slice(0, -2)}.${text.slice(-2)}`;
}

/** Two-decimal USD as cents, without floats. */
export function toCents(value: string): number {
  const [units = '0', fraction = ''] = value.split('.');
  return Number(units) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2));
}

export const paypalSandbox: ProviderSandbox = {
  name: 'paypal',
  async authorize(sandboxUrl, value) {
    const authorization = await postJson<{ id: string }>(`${sandboxUrl}/sandbox/authorizations`, {
      amount: { currency_code: 'USD', value },
    });
    return authorization.id;
  },
  serviceEnv: () => ({}),
  async captured(sandboxUrl, authorizationId) {
    const { captures } = await json<{ captures: Array<{ id: string; amount: { value: string } }> }>(
      fetch(`${sandboxUrl}/sandbox/authorizations/${authorizationId}/captures`),
    );
    const cents = captures.reduce((sum, capture) => sum + toCents(capture.amount.value), 0);
    return { captureIds: captures.map((capture) => capture.id), total: fromCents(cents) };
  },
};

export const stripeSandbox: ProviderSandbox = {
  name: 'stripe',
  async authorize(sandboxUrl, value) {
    const intent = await postJson<{ id: string }>(`${sandboxUrl}/sandbox/payment_intents`, {
      amount: toCents(value),
      currency: 'usd',
    });
    return intent.id;
  },
  serviceEnv: (sandboxUrl) => ({ PAYMENTS_PROVIDER: 'stripe', STRIPE_BASE_URL: sandboxUrl }),
  async captured(sandboxUrl, authorizationId) {
    const intent = await json<{ amount_received: number; latest_charge: string | { id: string } | null }>(
      fetch(`${sandboxUrl}/v1/payment_intents/${authorizationId}`, {
        headers: { authorization: `Bearer ${SANDBOX_STRIPE_API_KEY}` },
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

/**
 * Subscribes `listenerUrl` to every event of the Stripe sandbox through /v1/webhook_endpoints, by the Stripe
 * adapter, as the local stack does against Stripe. Stripe's webhook endpoints are not managed through the port.
 */
export async function subscribeToStripeSandbox(sandboxUrl: string, listenerUrl: string): Promise<string> {
  const endpoint = await subscribeStripeEndpoint(sandboxUrl, SANDBOX_STRIPE_API_KEY, listenerUrl);
  return endpoint.id;
}

export const providerSandboxes: Record<ProviderName, ProviderSandbox> = {
  paypal: paypalSandbox,
  stripe: stripeSandbox,
};
