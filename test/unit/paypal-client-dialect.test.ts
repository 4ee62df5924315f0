import { PayPalClient, type PayPalClientOptions } from '../../src/providers/paypal/client';
import type { PaymentsDialectName } from '../../src/providers/paypal/dialects';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import {
  authorizationBody,
  respondJson,
  startRecordingProvider,
  TOKEN_PATH,
  type RecordingProvider,
} from '../helpers/recording-provider';

// What PayPal's published contract asks of the client: it asks for the whole resource, copes with a
// minimal answer, sends a request id on every state-changing call and takes its own retried effect for
// success.

const minimalAuthorization = {
  id: 'REAUTH-1',
  status: 'CREATED',
  links: [{ href: 'https://api.example/v2/payments/authorizations/REAUTH-1', rel: 'self', method: 'GET' }],
};

describe('the client against a provider that answers minimal bodies', () => {
  let provider: RecordingProvider;
  beforeEach(async () => {
    provider = await startRecordingProvider(() => {});
  });
  afterEach(() => provider.close());

  const client = (dialect: PaymentsDialectName = 'paypal') =>
    new PayPalClient({
      baseUrl: provider.url,
      dialect,
      credentials: { clientId: 'id', clientSecret: 'secret' },
      timeoutMs: 2_000,
    });

  it.each<[PaymentsDialectName, string]>([
    ['spec', 'service-request-id'],
    ['paypal', 'paypal-request-id'],
  ])(
    '%s dialect: capture, void and reauthorize send Prefer: return=representation and %s',
    async (dialect, header) => {
      provider.setHandler((request, response) => {
        if (request.path === TOKEN_PATH) return;
        if (request.path.endsWith('/capture'))
          respondJson(response, 201, { id: 'CAP-1', status: 'COMPLETED' });
        else respondJson(response, request.path.endsWith('/void') ? 200 : 201, authorizationBody());
      });
      const payments = client(dialect);
      await payments.captureAuthorization('AUTH-1', {}, 'capture-key');
      await payments.voidAuthorization('AUTH-1', 'void-key');
      await payments.reauthorizeAuthorization('AUTH-1', { currency: 'USD', total: '1.00' }, 'reauth-key');
      const sent = provider.apiRequests().map((request) => [request.headers.prefer, request.headers[header]]);
      expect(sent).toEqual([
        ['return=representation', 'capture-key'],
        ['return=representation', 'void-key'],
        ['return=representation', 'reauth-key'],
      ]);
    },
  );

  it('reads a reauthorization answered with id, status and links again and answers it whole', async () => {
    provider.setHandler((request, response) => {
      if (request.path === TOKEN_PATH) return;
      if (request.method === 'POST') respondJson(response, 201, minimalAuthorization);
      else
        respondJson(
          response,
          200,
          authorizationBody({ id: 'REAUTH-1', amount: { currency_code: 'USD', value: '7.00' } }),
        );
    });
    const renewed = await client().reauthorizeAuthorization(
      'AUTH-1',
      { currency: 'USD', total: '7.00' },
      'r-1',
    );
    expect(renewed).toMatchObject({ id: 'REAUTH-1', status: 'CREATED', amount: { value: '7.00' } });
    expect(provider.apiRequests().map((request) => `${request.method} ${request.path}`)).toEqual([
      'POST /v2/payments/authorizations/AUTH-1/reauthorize',
      'GET /v2/payments/authorizations/REAUTH-1',
    ]);
  });

  it('takes a minimal capture as it is and reads a void answered 204 again', async () => {
    provider.setHandler((request, response) => {
      if (request.path === TOKEN_PATH) return;
      if (request.path.endsWith('/capture'))
        respondJson(response, 201, { id: 'CAP-1', status: 'PENDING', links: [] });
      else if (request.path.endsWith('/void')) {
        response.writeHead(204);
        response.end();
      } else respondJson(response, 200, authorizationBody({ status: 'VOIDED' }));
    });
    const payments = client();
    await expect(payments.captureAuthorization('AUTH-1', {}, 'c-1')).resolves.toMatchObject({
      id: 'CAP-1',
      status: 'PENDING',
    });
    await expect(payments.voidAuthorization('AUTH-1', 'v-1')).resolves.toMatchObject({ status: 'VOIDED' });
    expect(provider.apiRequests().map((request) => request.method)).toEqual(['POST', 'POST', 'GET']);
  });

  it('accepts lists whose arrays PayPal may leave out', async () => {
    provider.setHandler((request, response) => {
      if (request.path !== TOKEN_PATH) respondJson(response, 200, {});
    });
    await expect(client().listWebhooks()).resolves.toEqual({ webhooks: [] });
    await expect(client().listWebhookEventTypes()).resolves.toEqual({ event_types: [] });
  });
});

describe('the client retrying after a lost answer, against the sandbox in paypal mode', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, logger: false, mode: 'paypal' });
  });
  afterAll(() => sandbox.close());

  function client(options: Partial<PayPalClientOptions> = {}) {
    return new PayPalClient({
      baseUrl: sandbox.url,
      dialect: 'paypal',
      credentials: { clientId: 'sandbox-client', clientSecret: 'sandbox-secret' },
      timeoutMs: 3_000,
      ...options,
    });
  }

  async function control<T>(path: string, body: unknown): Promise<T> {
    const response = await fetch(`${sandbox.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
    return (await response.json()) as T;
  }

  const authorize = () =>
    control<{ id: string }>('/sandbox/authorizations', { amount: { currency_code: 'USD', value: '30.00' } });
  const dropNextAnswer = (operation: string) =>
    control('/sandbox/faults', { operation, mode: 'commit-then-drop', count: 1 });

  it('a reauthorization retried under its request id after a lost answer makes one hold, answered whole', async () => {
    const { id } = await authorize();
    const payments = client();
    await dropNextAnswer('reauthorize');
    const amount = { currency: 'USD', total: '30.00' };
    await expect(payments.reauthorizeAuthorization(id, amount, 'reauth-once')).rejects.toMatchObject({
      kind: 'network',
    });
    const renewed = await payments.reauthorizeAuthorization(id, amount, 'reauth-once');
    expect(renewed).toMatchObject({ status: 'CREATED', amount: { currency_code: 'USD', value: '30.00' } });
    const original = await payments.getAuthorization(id);
    const reauthorizations = (original.links ?? []).filter((link) => link.rel === 'reauthorization');
    expect(reauthorizations.map((link) => link.href)).toEqual([
      `${sandbox.url}/v2/payments/authorizations/${renewed.id}`,
    ]);
  });

  it('a void retried after a lost answer is a success: PREVIOUSLY_VOIDED is the void it made', async () => {
    const { id } = await authorize();
    const payments = client();
    await dropNextAnswer('void');
    // PayPal documents no request id on void, so the retry reaches the provider as a new void.
    await expect(payments.voidAuthorization(id)).rejects.toMatchObject({ kind: 'network' });
    await expect(payments.voidAuthorization(id)).resolves.toMatchObject({ id, status: 'VOIDED' });
  });

  it('a refused void stays refused', async () => {
    const { id } = await authorize();
    const payments = client();
    await payments.captureAuthorization(id, {}, 'all-of-it');
    await expect(payments.voidAuthorization(id)).rejects.toMatchObject({
      status: 422,
      details: [expect.objectContaining({ issue: 'PREVIOUSLY_CAPTURED' })],
    });
  });
});
