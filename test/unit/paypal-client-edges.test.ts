import { PayPalClient } from '../../src/providers/paypal/client';
import { specDialect } from '../../src/providers/paypal/dialects';
import { parseRetryAfterMs, PaymentsApiError } from '../../src/providers/paypal/errors';
import type { WebhookDelivery } from '../../src/providers/webhook-delivery';
import { EMPTY_DELIVERY_BODY_MESSAGE } from '../../src/providers/webhook-delivery';
import type { CertificateCache } from '../../src/providers/paypal/certificate-cache';
import { verifyDeliveryLocally } from '../../src/providers/paypal/local-verification';
import {
  respondJson,
  startRecordingProvider,
  TOKEN_PATH,
  type RecordingProvider,
} from '../helpers/recording-provider';
import { rejectionOf } from '../helpers/rejection';

// Inputs at the edges of the payments client, against a bare HTTP server that records what reached the wire.

let provider: RecordingProvider;

beforeEach(async () => {
  provider = await startRecordingProvider(() => {});
});
afterEach(async () => {
  await provider.close();
});

function client() {
  return new PayPalClient({
    baseUrl: provider.url,
    credentials: { clientId: 'edge-client', clientSecret: 'edge-secret' },
    timeoutMs: 2_000,
  });
}

const capture = { id: 'CAP-1', status: 'COMPLETED', amount: { currency_code: 'USD', value: '1.00' } };

describe('a request id that is not safe in a header', () => {
  beforeEach(() => {
    provider.setHandler((req, res) => {
      if (req.path !== TOKEN_PATH) respondJson(res, 201, capture);
    });
  });

  it.each([
    ['CR/LF and a second header', 'order-1\r\nX-Evil: 1'],
    ['a line feed', 'order-1\nX-Evil: 1'],
    ['non-ASCII letters', 'commande-été'],
    ['a leading space', ' order-1'],
    ['a trailing space', 'order-1 '],
    ['a tab', 'order\t1'],
    ['a NUL byte', 'order\u00001'],
  ])('is refused before any request when it holds %s', async (_case, requestId) => {
    const error = await rejectionOf(client().captureAuthorization('AUTH-1', {}, requestId), PaymentsApiError);
    expect(error).toMatchObject({ kind: 'invalid-request', retryable: false });
    expect(error.message).toMatch(/^captureAuthorization: the request id .* cannot be sent as a header/);
    expect(provider.apiRequests()).toHaveLength(0);
  });

  it('is sent exactly as given when it is printable ASCII, inner spaces included', async () => {
    const requestId = 'AUTH-1:order 42/capture#1';
    await client().captureAuthorization('AUTH-1', {}, requestId);
    const [request] = provider.apiRequests();
    expect(request?.headers['service-request-id']).toBe(requestId);
  });
});

describe('a delivery without a body', () => {
  const headers = { 'SERVICE-TRANSMISSION-ID': 'tx-1' };

  it.each([
    ['null', null],
    ['undefined', undefined],
  ])('is refused with the empty-body error when the body is %s', async (_case, body) => {
    const delivery = { headers, body } as unknown as WebhookDelivery;
    const error = await rejectionOf(client().verifyWebhookSignature(delivery, 'WH-1'), PaymentsApiError);
    expect(error).toMatchObject({ kind: 'invalid-request', message: EMPTY_DELIVERY_BODY_MESSAGE });
    expect(provider.requests).toHaveLength(0);
  });

  it('fails local verification with the same message, fetching no certificate', async () => {
    const certificates = {
      certificate: () => Promise.reject(new Error('no certificate should be fetched')),
    } as unknown as CertificateCache;
    const delivery = { headers, body: null } as unknown as WebhookDelivery;
    const check = await verifyDeliveryLocally(
      delivery,
      'WH-1',
      specDialect.transmissionHeaders,
      certificates,
    );
    expect(check).toEqual({ verification_status: 'FAILURE', reason: EMPTY_DELIVERY_BODY_MESSAGE });
  });
});

describe('Retry-After', () => {
  async function retryAfterMsOf(value: string): Promise<number | undefined> {
    provider.setHandler((req, res) => {
      if (req.path === TOKEN_PATH) return;
      res.writeHead(503, { 'Retry-After': value, 'Content-Type': 'text/plain' });
      res.end('busy');
    });
    const error = await rejectionOf(client().getAuthorization('AUTH-1'), PaymentsApiError);
    expect(error).toMatchObject({ status: 503, retryable: true });
    return error.retryAfterMs;
  }

  it.each(['1.5', '-1', '+2', '1e3', '0x10', 'soon', 'Mon', '2026-01-01'])(
    'ignores %j rather than reading it as "retry now"',
    async (value) => {
      expect(await retryAfterMsOf(value)).toBeUndefined();
    },
  );

  it('reads non-negative integer seconds', async () => {
    expect(await retryAfterMsOf('0')).toBe(0);
    expect(await retryAfterMsOf('120')).toBe(120_000);
  });

  it('reads an HTTP date as the time until it', async () => {
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    const ms = await retryAfterMsOf(inTenSeconds);
    expect(ms).toBeGreaterThan(7_000);
    expect(ms).toBeLessThanOrEqual(10_000);
    expect(await retryAfterMsOf('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(0);
  });

  it.each([
    ['IMF-fixdate', 'Sun, 06 Nov 1994 08:49:37 GMT'],
    ['RFC 850', 'Sunday, 06-Nov-94 08:49:37 GMT'],
    ['asctime', 'Sun Nov  6 08:49:37 1994'],
  ])('reads the %s form of an HTTP date', (_form, value) => {
    expect(parseRetryAfterMs(value, Date.UTC(1994, 10, 6, 8, 49, 27))).toBe(10_000);
  });
});
