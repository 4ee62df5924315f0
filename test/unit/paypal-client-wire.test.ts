import { inspect } from 'node:util';
import { loadConfig } from '../../src/config';
import {
  PayPalClient,
  paypalClientFromConfig,
  type PayPalClientOptions,
} from '../../src/providers/paypal/client';
import { PaymentsApiError, providerIssue } from '../../src/providers/paypal/errors';
import type { WebhookDelivery } from '../../src/providers/webhook-delivery';
import {
  authorizationBody,
  respondJson,
  startRecordingProvider,
  TOKEN_PATH,
  type ProviderHandler,
  type RecordingProvider,
} from '../helpers/recording-provider';
import { rejectionOf } from '../helpers/rejection';

// What the client puts on the wire, pinned against a bare HTTP server that records exact bytes and headers.

const CLIENT_ID = 'wire-client';
const CLIENT_SECRET = 'wire-secret-s3cr3t';

let provider: RecordingProvider;

beforeEach(async () => {
  provider = await startRecordingProvider(() => {});
});
afterEach(async () => {
  await provider.close();
});

function answer(handler: ProviderHandler) {
  provider.setHandler(handler);
}

function client(options: Partial<PayPalClientOptions> = {}) {
  return new PayPalClient({
    baseUrl: provider.url,
    credentials: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
    timeoutMs: 2_000,
    ...options,
  });
}

function rejection(promise: Promise<unknown>): Promise<PaymentsApiError> {
  return rejectionOf(promise, PaymentsApiError);
}

function onlyApiRequest() {
  const requests = provider.apiRequests();
  expect(requests).toHaveLength(1);
  return requests[0]!;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('authentication', () => {
  it('gets a client-credentials token with HTTP Basic and a form body, then sends it as a bearer token', async () => {
    answer((req, res) => {
      if (req.path !== TOKEN_PATH) respondJson(res, 200, authorizationBody());
    });
    await client().getAuthorization('AUTH-1');

    const [token] = provider.tokenRequests();
    expect(token?.method).toBe('POST');
    expect(token?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`,
    );
    expect(token?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(token?.body.toString()).toBe('grant_type=client_credentials');
    expect(onlyApiRequest().headers.authorization).toBe('Bearer token-1');
  });

  it('reuses a cached token across calls', async () => {
    answer((req, res) => {
      if (req.path !== TOKEN_PATH) respondJson(res, 200, authorizationBody());
    });
    const payments = client();
    await payments.getAuthorization('A');
    await payments.getAuthorization('B');
    await payments.getAuthorization('C');
    expect(provider.tokenRequests()).toHaveLength(1);
    expect(provider.apiRequests().map((r) => r.headers.authorization)).toEqual(
      Array(3).fill('Bearer token-1'),
    );
  });

  it('shares one token refresh among concurrent callers', async () => {
    answer(async (req, res) => {
      if (req.path === TOKEN_PATH) {
        await sleep(200);
        respondJson(res, 200, { access_token: 'shared', expires_in: 3600 });
      } else respondJson(res, 200, authorizationBody());
    });
    const payments = client();
    await Promise.all(['A', 'B', 'C', 'D', 'E'].map((id) => payments.getAuthorization(id)));
    expect(provider.tokenRequests()).toHaveLength(1);
    expect(provider.apiRequests().every((r) => r.headers.authorization === 'Bearer shared')).toBe(true);
  });

  it('refreshes the token shortly before expires_in runs out', async () => {
    let issued = 0;
    answer((req, res) => {
      if (req.path === TOKEN_PATH)
        respondJson(res, 200, { access_token: `short-${++issued}`, expires_in: 1 });
      else respondJson(res, 200, authorizationBody());
    });
    const payments = client();
    await payments.getAuthorization('A');
    await sleep(950); // past 1 s minus the refresh margin
    await payments.getAuthorization('A');
    expect(provider.apiRequests().map((r) => r.headers.authorization)).toEqual([
      'Bearer short-1',
      'Bearer short-2',
    ]);
  });

  it('retries once with a fresh token after a 401', async () => {
    answer((req, res) => {
      if (req.path === TOKEN_PATH) return;
      if (req.headers.authorization === 'Bearer token-1')
        respondJson(res, 401, { name: 'AUTHENTICATION_FAILURE' });
      else respondJson(res, 200, authorizationBody());
    });
    const authorization = await client().getAuthorization('AUTH-1');
    expect(authorization.id).toBe('0VF52814937998046');
    expect(provider.tokenRequests()).toHaveLength(2);
    expect(provider.apiRequests().map((r) => r.headers.authorization)).toEqual([
      'Bearer token-1',
      'Bearer token-2',
    ]);
  });

  it('gives up after the retry with a fresh token is refused too: a non-retryable 401', async () => {
    answer((req, res) => {
      if (req.path !== TOKEN_PATH) respondJson(res, 401, { name: 'AUTHENTICATION_FAILURE', message: 'no' });
    });
    const error = await rejection(client().getAuthorization('AUTH-1'));
    expect(error).toMatchObject({
      kind: 'provider',
      status: 401,
      name: 'AUTHENTICATION_FAILURE',
      retryable: false,
    });
    expect(provider.apiRequests()).toHaveLength(2);
    expect(provider.tokenRequests()).toHaveLength(2);
  });

  it('sends a static access token as is and never asks for another one', async () => {
    answer((req, res) => respondJson(res, 401, { name: 'AUTHENTICATION_FAILURE' }));
    const error = await rejection(
      client({ credentials: { accessToken: 'static-abc' } }).getAuthorization('X'),
    );
    expect(error.status).toBe(401);
    expect(provider.tokenRequests()).toHaveLength(0);
    expect(onlyApiRequest().headers.authorization).toBe('Bearer static-abc');
  });

  it('keeps secrets and tokens out of errors and logs', async () => {
    const lines: string[] = [];
    const logger = {
      debug: (fields: object, message: string) => lines.push(JSON.stringify({ fields, message })),
    };
    answer((req, res) => {
      if (req.path === TOKEN_PATH && req.body.length > 0 && provider.tokenRequests().length === 1) {
        respondJson(res, 401, { error: 'invalid_client', error_description: 'Client Authentication failed' });
      } else if (req.path === TOKEN_PATH) {
        respondJson(res, 200, { access_token: 'very-secret-token', expires_in: 3600 });
      } else res.destroy(); // a transport failure after the token was sent
    });
    const payments = client({ logger });
    const tokenError = await rejection(payments.getAuthorization('X'));
    expect(tokenError).toMatchObject({ status: 401, name: 'invalid_client', retryable: false });
    const networkError = await rejection(payments.getAuthorization('X'));
    expect(networkError).toMatchObject({ kind: 'network', retryable: true });

    const basic = Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64');
    for (const error of [tokenError, networkError]) {
      const everything = [inspect(error, { depth: 10 }), JSON.stringify(error), String(error.stack)].join(
        '\n',
      );
      for (const secret of [CLIENT_SECRET, basic, 'very-secret-token'])
        expect(everything).not.toContain(secret);
    }
    expect(lines.length).toBeGreaterThan(0);
    for (const secret of [CLIENT_SECRET, basic, 'very-secret-token'])
      expect(lines.join('\n')).not.toContain(secret);
  });
});

describe('interface A: authorizations', () => {
  it('gets an authorization by id, keeping fields it does not model', async () => {
    answer((req, res) => {
      if (req.path !== TOKEN_PATH)
        respondJson(res, 200, authorizationBody({ seller_protection: { status: 'X' } }));
    });
    const authorization = await client().getAuthorization('AUTH_1-x');
    const request = onlyApiRequest();
    expect(request.method).toBe('GET');
    expect(request.path).toBe('/v2/payments/authorizations/AUTH_1-x');
    expect(authorization).toMatchObject({ status: 'CREATED', seller_protection: { status: 'X' } });
  });

  it.each(['.', '..', 'AUTH/1', '../captures/C1', '', 'A'.repeat(65), 'AUTH 1', 'AUTH%2F1'])(
    'refuses the id %j before any request',
    async (id) => {
      const payments = client();
      const refusals = await Promise.all([
        rejection(payments.getAuthorization(id)),
        rejection(payments.captureAuthorization(id, {}, 'key')),
        rejection(payments.voidAuthorization(id)),
        rejection(payments.reauthorizeAuthorization(id, { currency: 'USD', total: '1.00' })),
        rejection(payments.getCapture(id)),
        rejection(payments.refundCapture(id, {}, 'key')),
        rejection(payments.getRefund(id)),
      ]);
      for (const error of refusals) {
        expect(error).toMatchObject({ kind: 'invalid-request', retryable: false });
        expect(error.message).toMatch(/ id .* is not a resource id: 1 to 64 letters, digits, "_" or "-"$/);
      }
      expect(provider.requests).toHaveLength(0);
    },
  );

  it.each([
    ['a non-empty request id', 'capture-key-1', 'capture-key-1'],
    ['an empty request id', '', undefined],
    ['no request id', undefined, undefined],
  ])('capture with %s sends Service-Request-Id only when non-empty', async (_case, requestId, header) => {
    answer((req, res) => {
      if (req.path !== TOKEN_PATH)
        respondJson(res, 201, { id: 'CAP-1', status: 'COMPLETED', final_capture: true });
    });
    const capture = await client().captureAuthorization(
      'AUTH-1',
      { amount: { currency_code: 'USD', value: '5.00' }, final_capture: true },
      requestId,
    );
    const request = onlyApiRequest();
    expect(request.path).toBe('/v2/payments/authorizations/AUTH-1/capture');
    expect(request.headers['service-request-id']).toBe(header);
    expect(request.headers['paypal-request-id']).toBeUndefined();
    expect(request.headers['content-type']).toMatch(/^application\/json/);
    expect(request.body.toString()).toBe(
      '{"amount":{"currency_code":"USD","value":"5.00"},"final_capture":true}',
    );
    expect(capture).toEqual({ id: 'CAP-1', status: 'COMPLETED', final_capture: true });
  });

  it('void sends an empty body and returns the authorization of a 200', async () => {
    answer((req, res) => {
      if (req.path !== TOKEN_PATH) respondJson(res, 200, authorizationBody({ status: 'VOIDED' }));
    });
    const voided = await client().voidAuthorization('AUTH-1');
    const request = onlyApiRequest();
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/v2/payments/authorizations/AUTH-1/void');
    expect(request.body).toHaveLength(0);
    expect(voided?.status).toBe('VOIDED');
  });

  it('void answered 204 without a body reads the authorization again', async () => {
    answer((req, res) => {
      if (req.path === TOKEN_PATH) return;
      if (req.method === 'GET') return respondJson(res, 200, authorizationBody({ status: 'VOIDED' }));
      res.writeHead(204);
      res.end();
    });
    await expect(client().voidAuthorization('AUTH-1')).resolves.toMatchObject({ status: 'VOIDED' });
    const [voided, read] = provider.apiRequests();
    expect(voided?.body).toHaveLength(0);
    expect(`${read?.method} ${read?.path}`).toBe('GET /v2/payments/authorizations/AUTH-1');
  });

  it('reauthorize sends {"amount":{"currency","total"}} with the total as a string', async () => {
    answer((req, res) => {
      if (req.path !== TOKEN_PATH) respondJson(res, 201, authorizationBody({ id: 'NEW-AUTH' }));
    });
    const reauthorized = await client().reauthorizeAuthorization('AUTH-1', {
      currency: 'USD',
      total: '10.99',
    });
    const request = onlyApiRequest();
    expect(request.path).toBe('/v2/payments/authorizations/AUTH-1/reauthorize');
    expect(request.body.toString()).toBe('{"amount":{"currency":"USD","total":"10.99"}}');
    expect(reauthorized.id).toBe('NEW-AUTH');
  });

  it('refuses a reauthorization total that is not a decimal string before sending anything', async () => {
    const error = await rejection(
      client().reauthorizeAuthorization('AUTH-1', { currency: 'USD', total: 10.99 as unknown as string }),
    );
    expect(error).toMatchObject({ kind: 'invalid-request', retryable: false });
    expect(error.message).toContain('total');
    expect(provider.requests).toHaveLength(0);
  });
});

describe('the paypal dialect', () => {
  it('sends PayPal-Request-Id on capture and {currency_code, value} on reauthorize', async () => {
    answer((req, res) => {
      if (req.path.endsWith('/capture')) respondJson(res, 201, { id: 'CAP-1', status: 'PENDING' });
      else if (req.path !== TOKEN_PATH) respondJson(res, 201, authorizationBody());
    });
    const payments = client({ dialect: 'paypal' });
    await payments.captureAuthorization('AUTH-1', {}, 'key-9');
    await payments.reauthorizeAuthorization('AUTH-1', { currency: 'EUR', total: '3.50' });
    const [capture, reauthorize] = provider.apiRequests();
    expect(capture?.headers['paypal-request-id']).toBe('key-9');
    expect(capture?.headers['service-request-id']).toBeUndefined();
    expect(reauthorize?.body.toString()).toBe('{"amount":{"currency_code":"EUR","value":"3.50"}}');
  });

  it('fills a verification request from PAYPAL-* headers and ignores SERVICE-* ones', async () => {
    answer((req, res) => {
      if (req.path !== TOKEN_PATH) respondJson(res, 200, { verification_status: 'SUCCESS' });
    });
    await client({ dialect: 'paypal' }).verifyWebhookSignature(
      { headers: { 'paypal-transmission-id': 'pp-1', 'service-transmission-id': 'svc-1' }, body: '{}' },
      'WH-1',
    );
    expect(onlyApiRequest().body.toString()).toBe(
      '{"transmission_id":"pp-1","webhook_id":"WH-1","webhook_event":{}}',
    );
  });
});

describe('interface B: webhooks', () => {
  const webhook = {
    id: 'WH-1',
    url: 'https://example.com/hook',
    event_types: [{ name: 'PAYMENT.CAPTURE.COMPLETED' }],
  };

  it('creates, gets and lists event types at the spec paths', async () => {
    answer((req, res) => {
      if (req.path === '/v1/notifications/webhooks-event-types') {
        respondJson(res, 200, {
          event_types: [{ name: 'PAYMENT.AUTHORIZATION.VOIDED', description: 'voided' }],
        });
      } else if (req.path !== TOKEN_PATH) respondJson(res, req.method === 'POST' ? 201 : 200, webhook);
    });
    const payments = client();
    const created = await payments.createWebhook({ url: webhook.url, event_types: webhook.event_types });
    const fetched = await payments.getWebhook('WH-1');
    const eventTypes = await payments.listWebhookEventTypes();
    const [create, get, list] = provider.apiRequests();
    expect([create?.method, create?.path]).toEqual(['POST', '/v1/notifications/webhooks']);
    expect(JSON.parse(create!.body.toString())).toEqual({
      url: webhook.url,
      event_types: webhook.event_types,
    });
    expect([get?.method, get?.path]).toEqual(['GET', '/v1/notifications/webhooks/WH-1']);
    expect([list?.method, list?.path, list?.query.size]).toEqual([
      'GET',
      '/v1/notifications/webhooks-event-types',
      0,
    ]);
    expect(created).toEqual(webhook);
    expect(fetched).toEqual(webhook);
    expect(eventTypes.event_types[0]?.name).toBe('PAYMENT.AUTHORIZATION.VOIDED');
  });

  it('update sends a JSON array of {op, path, value}', async () => {
    answer((req, res) => {
      if (req.path !== TOKEN_PATH) respondJson(res, 200, { ...webhook, url: 'https://example.com/new' });
    });
    const fields = [
      { op: 'replace' as const, path: '/url', value: 'https://example.com/new' },
      { op: 'replace' as const, path: '/event_types', value: [{ name: 'PAYMENT.AUTHORIZATION.VOIDED' }] },
    ];
    const updated = await client().updateWebhook('WH-1', fields);
    const request = onlyApiRequest();
    expect([request.method, request.path]).toEqual(['PATCH', '/v1/notifications/webhooks/WH-1']);
    expect(request.body.toString()).toBe(JSON.stringify(fields));
    expect(updated.url).toBe('https://example.com/new');
  });

  it.each([
    [undefined, 'APPLICATION'],
    ['', 'APPLICATION'],
    ['ACCOUNT', 'ACCOUNT'],
  ])('list with anchor type %p sends anchor_type=%s', async (anchorType, sent) => {
    answer((req, res) => {
      if (req.path !== TOKEN_PATH) respondJson(res, 200, { webhooks: [webhook] });
    });
    const list = await client().listWebhooks(anchorType);
    const request = onlyApiRequest();
    expect(request.path).toBe('/v1/notifications/webhooks');
    expect(request.query.getAll('anchor_type')).toEqual([sent]);
    expect(list.webhooks).toEqual([webhook]);
  });

  it('delete resolves without reading the response body', async () => {
    answer((req, res) => {
      if (req.path === TOKEN_PATH) return;
      // Headers and a body that never ends: reading it would hang until the time-out.
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"not":');
    });
    const started = Date.now();
    await expect(client({ timeoutMs: 5_000 }).deleteWebhook('WH-1')).resolves.toBeUndefined();
    expect(Date.now() - started).toBeLessThan(2_500);
    expect([onlyApiRequest().method, onlyApiRequest().path]).toEqual([
      'DELETE',
      '/v1/notifications/webhooks/WH-1',
    ]);
  });

  it('delete still reads the error body of a refusal', async () => {
    answer((req, res) => {
      if (req.path === TOKEN_PATH) return;
      respondJson(res, 404, {
        name: 'RESOURCE_NOT_FOUND',
        message: 'The specified resource does not exist.',
        debug_id: 'dbg-7',
        details: [{ issue: 'INVALID_RESOURCE_ID', description: 'Webhook id not found' }],
      });
    });
    const error = await rejection(client().deleteWebhook('WH-404'));
    expect(error).toMatchObject({
      status: 404,
      name: 'RESOURCE_NOT_FOUND',
      debugId: 'dbg-7',
      retryable: false,
    });
    expect(providerIssue(error)).toBe('INVALID_RESOURCE_ID');
  });
});

describe('webhook signature verification', () => {
  const headers = {
    'Service-Auth-Algo': 'SHA256withRSA',
    'SERVICE-CERT-URL': 'http://127.0.0.1/certs/1.pem',
    'service-transmission-id': ['tx-1', 'tx-duplicate'],
    'Service-Transmission-Sig': 'c2lnbmF0dXJl',
    'SERVICE-TRANSMISSION-TIME': '',
    'X-Unrelated': 'ignored',
  };
  const trickyBody =
    '{ "z":1.0,\n  "a":12345678901234567890123,\t"u":"\\u00e9\\ud83d\\ude00 é 😀", "nested":{"b":[1e2, -0, 0.10]} }\n';

  beforeEach(() => {
    answer((req, res) => {
      if (req.path !== TOKEN_PATH) respondJson(res, 200, { verification_status: 'SUCCESS' });
    });
  });

  it.each([
    ['an empty string', ''],
    ['an empty buffer', Buffer.alloc(0)],
  ])('is refused before any request when the body is %s', async (_case, body) => {
    const error = await rejection(client().verifyWebhookSignature({ headers, body }, 'WH-1'));
    expect(error.message).toMatch(/webhook cannot be verified for a request with an empty body/i);
    expect(error).toMatchObject({ kind: 'invalid-request', retryable: false });
    expect(provider.requests).toHaveLength(0);
  });

  it('embeds the delivery body byte for byte, fills fields from SERVICE-* headers and omits empty ones', async () => {
    const result = await client().verifyWebhookSignature({ headers, body: trickyBody }, 'WH-1');
    const request = onlyApiRequest();
    expect([request.method, request.path]).toEqual(['POST', '/v1/notifications/verify-webhook-signature']);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.body.toString('utf8')).toBe(
      '{"auth_algo":"SHA256withRSA","cert_url":"http://127.0.0.1/certs/1.pem","transmission_id":"tx-1",' +
        `"transmission_sig":"c2lnbmF0dXJl","webhook_id":"WH-1","webhook_event":${trickyBody}}`,
    );
    expect(result.verification_status).toBe('SUCCESS');
  });

  it('keeps raw bytes of a Buffer body, omits an empty webhook id, and leaves the delivery unchanged', async () => {
    const body = Buffer.from('{"amount":{"value":"1.10"},"big":9007199254740993}', 'utf8');
    const delivery: WebhookDelivery = { headers: { 'service-transmission-id': 'tx-2' }, body };
    const before = { headers: structuredClone(delivery.headers), body: Buffer.from(body) };

    await client().verifyWebhookSignature(delivery, '');
    expect(
      onlyApiRequest().body.equals(
        Buffer.concat([Buffer.from('{"transmission_id":"tx-2","webhook_event":'), body, Buffer.from('}')]),
      ),
    ).toBe(true);
    expect(delivery.headers).toEqual(before.headers);
    expect(delivery.body).toBe(body);
    expect(body.equals(before.body)).toBe(true);
  });

  it('refuses a body that is not JSON before any request', async () => {
    const error = await rejection(client().verifyWebhookSignature({ headers, body: 'not json' }, 'WH-1'));
    expect(error.kind).toBe('invalid-request');
    expect(provider.requests).toHaveLength(0);
  });
});

describe('errors', () => {
  it('maps a 422 refusal to a non-retryable provider error with its issue and debug id', async () => {
    answer((req, res) => {
      if (req.path === TOKEN_PATH) return;
      respondJson(res, 422, {
        name: 'UNPROCESSABLE_ENTITY',
        message: 'The requested action could not be performed.',
        debug_id: '90957fca61718',
        details: [
          { field: '/amount', issue: 'AUTHORIZATION_ALREADY_CAPTURED', description: 'Already captured.' },
        ],
      });
    });
    const error = await rejection(client().captureAuthorization('AUTH-1', {}, 'k'));
    expect(error).toMatchObject({
      kind: 'provider',
      status: 422,
      name: 'UNPROCESSABLE_ENTITY',
      debugId: '90957fca61718',
      retryable: false,
      details: [
        { field: '/amount', issue: 'AUTHORIZATION_ALREADY_CAPTURED', description: 'Already captured.' },
      ],
    });
    expect(error.message).toContain('The requested action could not be performed.');
    expect(providerIssue(error)).toBe('AUTHORIZATION_ALREADY_CAPTURED');
  });

  it.each([
    [400, false],
    [403, false],
    [404, false],
    [408, true],
    [409, true],
    [429, true],
    [500, true],
    [503, true],
  ])('classifies HTTP %i as retryable=%p', async (status, retryable) => {
    answer((req, res) => {
      if (req.path !== TOKEN_PATH) respondJson(res, status, { name: 'SOME_ERROR' });
    });
    const error = await rejection(client().getAuthorization('AUTH-1'));
    expect(error).toMatchObject({ kind: 'provider', status, retryable, name: 'SOME_ERROR' });
    expect(providerIssue(error)).toBe('SOME_ERROR');
  });

  it('reads Retry-After into retryAfterMs, and names a provider error without a JSON body by its status', async () => {
    answer((req, res) => {
      if (req.path === TOKEN_PATH) return;
      res.writeHead(429, { 'Retry-After': '3', 'Content-Type': 'text/html' });
      res.end('<html>slow down</html>');
    });
    const error = await rejection(client().getAuthorization('AUTH-1'));
    expect(error).toMatchObject({ status: 429, retryable: true, retryAfterMs: 3_000, name: 'HTTP_429' });
  });

  it('reports a response missing a field it relies on as invalid-response naming the field', async () => {
    answer((req, res) => {
      if (req.path !== TOKEN_PATH)
        respondJson(res, 200, { id: 'AUTH-1', amount: { currency_code: 'USD', value: '1' } });
    });
    const error = await rejection(client().getAuthorization('AUTH-1'));
    expect(error).toMatchObject({ kind: 'invalid-response', retryable: false, status: 200 });
    expect(error.message).toMatch(/Authorization is invalid: status:/);
  });

  it('reports a body that is not JSON as invalid-response', async () => {
    answer((req, res) => {
      if (req.path === TOKEN_PATH) return;
      res.writeHead(200);
      res.end('OK');
    });
    const error = await rejection(client().listWebhookEventTypes());
    expect(error).toMatchObject({ kind: 'invalid-response', retryable: false });
  });

  it('reports a provider that does not answer in time as a retryable timeout', async () => {
    answer(() => new Promise(() => {}));
    const started = Date.now();
    const error = await rejection(
      client({ credentials: { accessToken: 't' }, timeoutMs: 300 }).getAuthorization('A'),
    );
    expect(error).toMatchObject({ kind: 'timeout', retryable: true, status: undefined });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('reports a refused connection as a retryable network error', async () => {
    const url = provider.url;
    await provider.close();
    provider = await startRecordingProvider(() => {}); // for afterEach
    const error = await rejection(
      new PayPalClient({ baseUrl: url, credentials: { accessToken: 't' } }).getAuthorization('A'),
    );
    expect(error).toMatchObject({ kind: 'network', retryable: true, status: undefined });
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('refuses an empty id before sending anything', async () => {
    const error = await rejection(client().getAuthorization(''));
    expect(error.kind).toBe('invalid-request');
    expect(provider.requests).toHaveLength(0);
  });
});

describe('paypalClientFromConfig', () => {
  it('uses the configured dialect, a static token when one is configured, and a base URL override', async () => {
    answer((req, res) => respondJson(res, 201, { id: 'CAP', status: 'COMPLETED' }));
    const config = loadConfig({
      PAYPAL_BASE_URL: 'http://127.0.0.1:1',
      PAYPAL_DIALECT: 'paypal',
      PAYPAL_ACCESS_TOKEN: 'configured-token',
    });
    await paypalClientFromConfig(config, provider.url).captureAuthorization('A', {}, 'rid');
    const request = onlyApiRequest();
    expect(request.headers.authorization).toBe('Bearer configured-token');
    expect(request.headers['paypal-request-id']).toBe('rid');
  });

  it('fails without any base URL', () => {
    expect(() => paypalClientFromConfig(loadConfig({}))).toThrow(/PAYPAL_BASE_URL/);
  });
});
