import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import { createPaymentsWorkerActivities } from '../../src/activities';
import { VerificationStarter } from '../../src/webhooks/verification-starter';
import { WEBHOOK_ROUTE } from '../../src/webhooks/listener-url';
import { sandboxProvider } from '../helpers/lifecycle-stack';
import type { ModelProvider } from './model-provider';
import { readPayPalLedger } from './provider-ledger';
import { paypalWebhooks } from '../helpers/webhook-intakes';

const portOf = (sandbox: Sandbox) =>
  sandboxProvider(sandbox, undefined, 'spec', [new URL(sandbox.url).origin]);

/** PayPal for the money model: the sandbox's spec mode, its /v2 API as the dashboard, its control routes. */
export const paypalModel: ModelProvider = {
  name: 'paypal',
  dashboardToken: 'model-dashboard-token',
  startSandbox: (dashboardToken) => startSandbox({ port: 0, logger: false, staticTokens: [dashboardToken] }),
  intake: (sandbox, client, taskQueue, webhookId) => ({
    webhooks: paypalWebhooks(
      new VerificationStarter({ client, taskQueue, mode: 'api', provider: 'paypal', webhookId }),
      portOf(sandbox).deliveryHeaders,
    ),
  }),
  webhookRoute: WEBHOOK_ROUTE,
  activities(sandbox, listenerUrl) {
    const port = portOf(sandbox);
    return createPaymentsWorkerActivities({ provider: port, webhooks: { listenerUrl } });
  },
  async authorize(provider) {
    const authorization = await provider.post<{ id: string }>('/sandbox/authorizations', {
      amount: { currency_code: 'USD', value: '100.00' },
    });
    return authorization.data.id;
  },
  readLedger: (provider, _api, authorizationId) => readPayPalLedger(provider, authorizationId),
  readable: (eventType) => eventType.startsWith('PAYMENT.AUTHORIZATION.'),
  overMoveIssues: [
    'MAX_CAPTURE_AMOUNT_EXCEEDED',
    'AUTHORIZATION_ALREADY_CAPTURED',
    'REFUND_AMOUNT_EXCEEDED',
    'CAPTURE_FULLY_REFUNDED',
    'REFUND_NOT_PERMITTED_DUE_TO_CHARGEBACK',
  ],
  async dashboardCapture(provider, authorizationId, amount, finalCapture, name) {
    await provider.post(
      `/v2/payments/authorizations/${authorizationId}/capture`,
      { amount: { currency_code: 'USD', value: amount }, final_capture: finalCapture, invoice_id: name },
      { headers: { 'paypal-request-id': name } },
    );
  },
  async dashboardRefund(provider, captureId, amount, name) {
    await provider.post(
      `/v2/payments/captures/${captureId}/refund`,
      { ...(amount && { amount: { currency_code: 'USD', value: amount } }), invoice_id: name },
      { headers: { 'paypal-request-id': name } },
    );
  },
  async returnRefund(provider, captureId, cancel, reversals) {
    type RefundWire = { id: string; status: string };
    const listed = await provider.get<{ refunds: RefundWire[] }>(`/sandbox/captures/${captureId}/refunds`);
    const refund = listed.data.refunds
      .filter(({ id, status }) => status === 'COMPLETED' && !reversals.has(id))
      .at(-1);
    if (!refund) return undefined;
    const returned = await provider.post(`/sandbox/refunds/${refund.id}/${cancel ? 'cancel' : 'fail'}`);
    if (returned.status !== 200)
      throw new Error(`refund ${refund.id} not returned: ${JSON.stringify(returned.data)}`);
    return refund.id;
  },
  async chargeback(provider, captureId) {
    const response = await provider.post<{ id: string }>(`/sandbox/captures/${captureId}/reverse`);
    return response.status === 201 ? response.data.id : undefined;
  },
};
