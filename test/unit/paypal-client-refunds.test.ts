import { PayPalClient } from '../../src/providers/paypal/client';
import { PaymentsApiError } from '../../src/providers/paypal/errors';
import {
  respondJson,
  startRecordingProvider,
  TOKEN_PATH,
  type RecordingProvider,
} from '../helpers/recording-provider';
import { rejectionOf } from '../helpers/rejection';

// The refund call on the wire: the request PayPal documents (captures.refund) and its minimal answer.

let provider: RecordingProvider;
beforeEach(async () => {
  provider = await startRecordingProvider(() => {});
});
afterEach(async () => {
  await provider.close();
});

const client = (dialect: 'spec' | 'paypal') =>
  new PayPalClient({
    baseUrl: provider.url,
    credentials: { clientId: 'wire-client', clientSecret: 'wire-secret' },
    timeoutMs: 2_000,
    dialect,
  });

const minimalRefund = {
  id: '1JU08902781691411',
  status: 'COMPLETED',
  links: [
    { href: 'https://api.paypal.com/v2/payments/refunds/1JU08902781691411', rel: 'self', method: 'GET' },
  ],
};

describe('payments client: refundCapture on the wire', () => {
  it.each([
    ['paypal', 'paypal-request-id'],
    ['spec', 'service-request-id'],
  ] as const)(
    '%s dialect: POSTs the refund request with Prefer and %s, and accepts the minimal answer',
    async (dialect, header) => {
      provider.setHandler((request, response) => {
        if (request.path !== TOKEN_PATH) respondJson(response, 201, minimalRefund);
      });
      const refund = await client(dialect).refundCapture(
        '2GG279541U471931P',
        { amount: { currency_code: 'USD', value: '10.00' }, note_to_payer: 'Defective product' },
        'order-42-refund-1',
      );
      expect(refund).toEqual(minimalRefund);
      const [request] = provider.apiRequests();
      expect(request).toMatchObject({
        method: 'POST',
        path: '/v2/payments/captures/2GG279541U471931P/refund',
      });
      expect(request!.headers).toMatchObject({
        prefer: 'return=representation',
        [header]: 'order-42-refund-1',
        'content-type': expect.stringContaining('application/json'),
      });
      expect(JSON.parse(request!.body.toString('utf8'))).toEqual({
        amount: { currency_code: 'USD', value: '10.00' },
        note_to_payer: 'Defective product',
      });
    },
  );

  it('refuses an answer without the refund id or status, naming the field', async () => {
    provider.setHandler((request, response) => {
      if (request.path !== TOKEN_PATH) respondJson(response, 201, { status: 'COMPLETED' });
    });
    const error = await rejectionOf(client('paypal').refundCapture('CAPTURE1', {}), PaymentsApiError);
    expect(error.kind).toBe('invalid-response');
    expect(error.message).toContain('id');
  });
});
