import type { AxiosInstance } from 'axios';
import { createPaymentsWorkerActivities } from '../../src/activities';
import { toMinorUnits } from '../../src/currency-decimals';
import { stripeEndpoint } from '../../src/providers/stripe/client';
import { stripeProvider } from '../../src/providers/stripe/provider';
import { startSandbox } from '../../src/sandbox/server';
import { DEFAULT_STRIPE_WEBHOOK_SECRET } from '../../src/sandbox/stripe/mode';
import { STRIPE_WEBHOOK_ROUTE } from '../../src/webhooks/listener-url';
import type { ModelProvider } from './model-provider';
import { CURRENCY } from './provider-ledger';
import { disputedAmounts, disputeOf, readStripeLedger, reinstatedDisputes } from './stripe-ledger';
import { stripeVerificationStarter, stripeWebhooks } from '../helpers/webhook-intakes';

const STRIPE_API_KEY = 'sk_test_model';
/**
 * Stripe's 24 hours shortened: longer than an order system's attempts of one call (about 8 s), so that a key
 * lasts through them, and short enough for a run to wait out.
 */
const KEY_RETENTION_MS = 10_000;
/** The sandbox's Stripe mode signs its deliveries with this endpoint secret. */
const STRIPE_WEBHOOK_SECRET = DEFAULT_STRIPE_WEBHOOK_SECRET;

/** A two-decimal USD amount in cents, as Stripe's forms write it. */
function cents(value: string): string {
  const minor = toMinorUnits(value, CURRENCY);
  if (minor === undefined) throw new Error(`not a ${CURRENCY} amount: ${value}`);
  return minor.toString();
}

/** A POST to Stripe's API as the dashboard makes it: a form, under an Idempotency-Key. */
function postForm(provider: AxiosInstance, path: string, fields: Record<string, string>, key: string) {
  return provider.post(path, new URLSearchParams(fields), { headers: { 'idempotency-key': key } });
}

/**
 * Stripe for the money model: the sandbox's Stripe mode, an account that uses multicapture (an intent allows
 * several captures only when created with it), its /v1 API with a secret key as the dashboard, and disputes by
 * the control route.
 */
export const stripeModel: ModelProvider = {
  name: 'stripe',
  dashboardToken: 'sk_test_model_dashboard',
  keyRetentionMs: KEY_RETENTION_MS,
  startSandbox: () =>
    startSandbox({ port: 0, logger: false, mode: 'stripe', stripeKeyRetentionMs: KEY_RETENTION_MS }),
  intake: (_sandbox, client, taskQueue) => ({
    webhooks: stripeWebhooks(stripeVerificationStarter(client, taskQueue), [STRIPE_WEBHOOK_SECRET]),
  }),
  webhookRoute: STRIPE_WEBHOOK_ROUTE,
  activities(sandbox) {
    const provider = stripeProvider({
      apiKey: STRIPE_API_KEY,
      ...stripeEndpoint(sandbox.url),
      timeoutMs: 2000,
      multicapture: true,
      webhookSecrets: [STRIPE_WEBHOOK_SECRET],
      keyRetentionMs: KEY_RETENTION_MS,
    });
    // Stripe's calls under Stripe's names (stripe.…), as a worker with PAYMENTS_PROVIDER=stripe hosts them.
    return createPaymentsWorkerActivities({ provider });
  },
  async authorize(provider, multicapture, overcapture) {
    const intent = await provider.post<{ id: string }>('/sandbox/payment_intents', {
      amount: 10000,
      currency: 'usd',
      multicapture,
      overcapture,
      // Cards that let a hold be raised in place, so that Increment reaches Stripe.
      incremental: true,
    });
    if (intent.status !== 201) throw new Error(`no intent: ${JSON.stringify(intent.data)}`);
    return intent.data.id;
  },
  readLedger: readStripeLedger,
  readable: () => true,
  overMoveIssues: ['amount_too_large', 'charge_already_refunded', 'charge_disputed'],
  async dashboardCapture(provider, authorizationId, amount, finalCapture, name) {
    await postForm(
      provider,
      `/v1/payment_intents/${authorizationId}/capture`,
      {
        amount_to_capture: cents(amount),
        ...(!finalCapture && { final_capture: 'false' }),
        'metadata[invoice_id]': name,
      },
      name,
    );
  },
  async dashboardRefund(provider, captureId, amount, name) {
    await postForm(
      provider,
      '/v1/refunds',
      { charge: captureId, ...(amount && { amount: cents(amount) }), 'metadata[invoice_id]': name },
      name,
    );
  },
  async chargeback(provider, captureId) {
    const response = await provider.post<{ amount: number }>(`/sandbox/charges/${captureId}/dispute`);
    if (response.status !== 201) return undefined;
    disputedAmounts.set(captureId, response.data.amount);
    return disputeOf(captureId);
  },
  // Stripe's card refunds succeed at once in the sandbox, so none is pending to cancel: each comes back failed.
  async returnRefund(provider, captureId) {
    type RefundWire = { id: string; status: string };
    const listed = await provider.get<{ data: RefundWire[] }>('/v1/refunds', {
      params: { charge: captureId, limit: 100 },
    });
    const refund = listed.data.data.find(({ status }) => status === 'succeeded');
    if (!refund) return undefined;
    const failed = await provider.post(`/sandbox/refunds/${refund.id}/fail`, {});
    if (failed.status !== 200)
      throw new Error(`refund ${refund.id} not failed: ${JSON.stringify(failed.data)}`);
    return refund.id;
  },
  async disputeOutcome(provider, captureId, outcome) {
    const inquiry = outcome === 'inquiry';
    const opened = await provider.post<{ id: string; amount: number }>(
      `/sandbox/charges/${captureId}/dispute`,
      {
        inquiry,
      },
    );
    if (opened.status !== 201) return undefined;
    if (!inquiry) disputedAmounts.set(captureId, opened.data.amount);
    // An inquiry closes as warning_closed whatever the outcome named.
    const closed = await provider.post(`/sandbox/disputes/${opened.data.id}/close`, {
      outcome: outcome === 'won' ? 'won' : 'lost',
    });
    if (closed.status !== 200) throw new Error(`dispute not closed: ${JSON.stringify(closed.data)}`);
    if (outcome === 'won') reinstatedDisputes.add(captureId);
    // Stripe refuses the refunds of a charge whose dispute was lost; after an inquiry or a won dispute it
    // refunds the charge again.
    return {
      ...(outcome === 'lost' && { reversal: disputeOf(captureId) }),
      refundsRefused: !inquiry && outcome === 'lost',
    };
  },
};
