import type { PaymentsDialectName } from '../../src/providers/paypal/dialects';
import { ProviderError, type PaymentsProvider } from '../../src/providers/port';
import { createPayPalProvider } from '../../src/providers/registry';
import {
  authorizationBody,
  respondJson,
  startRecordingProvider,
  type RecordingProvider,
} from '../helpers/recording-provider';
import { rejectionOf } from '../helpers/rejection';

let recording: RecordingProvider;

beforeEach(async () => {
  recording = await startRecordingProvider((req, res) => {
    if (req.path.endsWith('/refund')) return respondJson(res, 201, { id: 'REF-1', status: 'COMPLETED' });
    if (req.path.endsWith('/capture')) return respondJson(res, 201, { id: 'CAP-1', status: 'COMPLETED' });
    respondJson(res, 201, authorizationBody());
  });
});
afterEach(async () => {
  await recording.close();
});

function paypal(dialect: PaymentsDialectName = 'spec'): PaymentsProvider {
  return createPayPalProvider({
    baseUrl: recording.url,
    dialect,
    credentials: { accessToken: 'test-token' },
    timeoutMs: 5_000,
  });
}

const usd = (value: string) => ({ currency_code: 'USD', value });
const sent = (index = 0) => {
  const request = recording.requests[index];
  if (!request) throw new Error(`no request ${index}`);
  return { ...request, json: JSON.parse(request.body.toString() || 'null') as unknown };
};

describe('the PayPal adapter of the provider port', () => {
  it('sends a capture as PayPal names it, the idempotency key as the request id', async () => {
    await paypal('paypal').captureAuthorization({
      authorizationId: 'AUTH-1',
      amount: usd('5.00'),
      finalCapture: false,
      idempotencyKey: 'order-7-capture-1',
      invoiceId: 'INV-7',
      noteToPayer: 'thanks',
    });
    const request = sent();
    expect(request.path).toBe('/v2/payments/authorizations/AUTH-1/capture');
    expect(request.headers['paypal-request-id']).toBe('order-7-capture-1');
    expect(request.json).toEqual({
      amount: usd('5.00'),
      final_capture: false,
      invoice_id: 'INV-7',
      note_to_payer: 'thanks',
    });
  });

  it('answers a capture read with the authorization it names: related_ids, else its up link', async () => {
    const linked = await startRecordingProvider((req, res) =>
      respondJson(res, 200, {
        id: req.path.split('/').pop(),
        status: 'COMPLETED',
        links: [{ href: 'https://api.example/v2/payments/authorizations/AUTH-UP', rel: 'up', method: 'GET' }],
        ...(req.path.endsWith('CAP-RELATED') && {
          supplementary_data: { related_ids: { authorization_id: 'AUTH-RELATED' } },
        }),
      }),
    );
    try {
      const provider = createPayPalProvider({
        baseUrl: linked.url,
        dialect: 'paypal',
        credentials: { accessToken: 'test-token' },
        timeoutMs: 5_000,
      });
      expect(await provider.getCapture('CAP-RELATED')).toMatchObject({ authorization_id: 'AUTH-RELATED' });
      expect(await provider.getCapture('CAP-LINKED')).toMatchObject({ authorization_id: 'AUTH-UP' });
    } finally {
      await linked.close();
    }
  });

  it('finds no capture on a CREATED authorization nor refund on a COMPLETED capture; past those it cannot tell', async () => {
    const statuses: Record<string, string> = {
      'AUTH-NEW': 'CREATED',
      'AUTH-TAKEN': 'PARTIALLY_CAPTURED',
      'CAP-WHOLE': 'COMPLETED',
      'CAP-PART': 'PARTIALLY_REFUNDED',
    };
    const reads = await startRecordingProvider((req, res) => {
      const id = req.path.split('/').pop() ?? '';
      respondJson(res, 200, authorizationBody({ id, status: statuses[id] }));
    });
    try {
      const provider = createPayPalProvider({
        baseUrl: reads.url,
        dialect: 'paypal',
        credentials: { accessToken: 'test-token' },
        timeoutMs: 5_000,
      });
      const capture = (authorizationId: string) => ({
        authorizationId,
        amount: usd('5.00'),
        finalCapture: false,
        idempotencyKey: 'k',
      });
      const refund = (captureId: string) => ({ captureId, amount: usd('1.00'), idempotencyKey: 'k' });
      expect(await provider.findCapture(capture('AUTH-NEW'))).toEqual({ found: null });
      expect(await provider.findCapture(capture('AUTH-TAKEN'))).toEqual({
        unknown: expect.stringContaining('PARTIALLY_CAPTURED'),
      });
      expect(await provider.findRefund(refund('CAP-WHOLE'))).toEqual({ found: null });
      expect(await provider.findRefund(refund('CAP-PART'))).toEqual({
        unknown: expect.stringContaining('PARTIALLY_REFUNDED'),
      });
      expect(reads.requests.map((request) => request.path)).toEqual([
        '/v2/payments/authorizations/AUTH-NEW',
        '/v2/payments/authorizations/AUTH-TAKEN',
        '/v2/payments/captures/CAP-WHOLE',
        '/v2/payments/captures/CAP-PART',
      ]);
    } finally {
      await reads.close();
    }
  });

  it('sends a refund under the spec dialect’s request-id header, leaving out what was not given', async () => {
    await paypal().refundCapture({ captureId: 'CAP-1', idempotencyKey: 'refund-1' });
    const request = sent();
    expect(request.path).toBe('/v2/payments/captures/CAP-1/refund');
    expect(request.headers['service-request-id']).toBe('refund-1');
    expect(request.json).toEqual({});
  });

  it.each([
    ['spec', { amount: { currency: 'USD', total: '7.50' } }],
    ['paypal', { amount: usd('7.50') }],
  ] as const)('writes a reauthorization’s amount in the %s dialect', async (dialect, body) => {
    await paypal(dialect).reauthorizeAuthorization({
      authorizationId: 'AUTH-1',
      amount: usd('7.50'),
      idempotencyKey: 'reauthorize-1',
    });
    expect(sent().path).toBe('/v2/payments/authorizations/AUTH-1/reauthorize');
    expect(sent().json).toEqual(body);
  });

  it('voids with the idempotency key as the request id', async () => {
    await paypal().voidAuthorization({ authorizationId: 'AUTH-1', idempotencyKey: 'void-1' });
    expect(sent().path).toBe('/v2/payments/authorizations/AUTH-1/void');
    expect(sent().headers['service-request-id']).toBe('void-1');
  });

  it('answers its errors classified: a refusal typed by the provider’s issue, not retryable', async () => {
    recording.setHandler((_req, res) =>
      respondJson(res, 422, { name: 'UNPROCESSABLE_ENTITY', details: [{ issue: 'AUTHORIZATION_VOIDED' }] }),
    );
    const error = await rejectionOf(paypal().getAuthorization('AUTH-1'), ProviderError);
    expect(error).toMatchObject({ type: 'AUTHORIZATION_VOIDED', retryable: false });
  });

  it("refuses a capture past PayPal's capture count as a business refusal, not retryable", async () => {
    recording.setHandler((_req, res) =>
      respondJson(res, 422, {
        name: 'UNPROCESSABLE_ENTITY',
        details: [{ issue: 'MAX_CAPTURE_COUNT_EXCEEDED' }],
      }),
    );
    const capture = paypal().captureAuthorization({
      authorizationId: 'AUTH-1',
      amount: { currency_code: 'USD', value: '1.00' },
      finalCapture: false,
      idempotencyKey: 'k1',
    });
    const error = await rejectionOf(capture, ProviderError);
    expect(error).toMatchObject({ type: 'MAX_CAPTURE_COUNT_EXCEEDED', retryable: false });
  });

  it('declares what the lifecycle may rely on', () => {
    const provider = paypal('paypal');
    expect(provider.capabilities).toMatchObject({
      multipleCaptures: true,
      reauthorization: 'reauthorize',
      maxCaptures: 100,
    });
    expect(provider.deliveryHeaders.transmission_id).toBe('PAYPAL-TRANSMISSION-ID');
    expect(provider.subscriptions).toBeDefined();
  });
});
