import axios from 'axios';
import { PaymentsClient } from '../src/payments/client';
import { startSandbox, type Sandbox } from '../src/sandbox/server';
import {
  eventResources,
  operationOf,
  operations,
  responseSchema,
  violations,
} from './contract/paypal-contract';
import { startRecordingProxy, type Exchange } from './helpers/recording-proxy';
import { requestToken, startWebhookListener, type WebhookListener } from './helpers/sandbox-fixtures';

// Contract tests from PayPal's published documents (schemas derived into test/contract): every request the
// client sends and every answer and event the sandbox produces in `paypal` mode validates against them.
// A recording proxy between the two sees the exact bytes.

let sandbox: Sandbox;
let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
let listener: WebhookListener;
let payments: PaymentsClient;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, logger: false, mode: 'paypal' });
  proxy = await startRecordingProxy(sandbox.url);
  listener = await startWebhookListener();
  payments = new PaymentsClient({
    baseUrl: proxy.url,
    dialect: 'paypal',
    credentials: { clientId: 'sandbox-client', clientSecret: 'sandbox-secret' },
    timeoutMs: 3_000,
  });
});
afterAll(async () => {
  await listener.close();
  await proxy.close();
  await sandbox.close();
});

const json = (bytes: Buffer): unknown =>
  bytes.length === 0 ? undefined : JSON.parse(bytes.toString('utf8'));

/** What the exchange breaks of the contract; `requests: false` checks the answer only. */
function contractViolations(exchange: Exchange, requests = true): string[] {
  const operation = operationOf(exchange.method, exchange.path);
  if (!operation) return [];
  const where = `${exchange.method} ${exchange.path} → ${exchange.status}:`;
  const found: string[] = [];
  if (requests && operation.request && exchange.requestBody.length > 0) {
    found.push(
      ...violations(operation.request, json(exchange.requestBody)).map((v) => `${where} request ${v}`),
    );
  }
  const schema = responseSchema(operation, exchange.status);
  if (schema === undefined) found.push(`${where} a status the document does not list`);
  else if (schema === null) {
    if (exchange.responseBody.length > 0) found.push(`${where} a body where the document has none`);
  } else found.push(...violations(schema, json(exchange.responseBody)).map((v) => `${where} ${v}`));
  return found;
}

async function authorize(value: string): Promise<string> {
  const created = await axios.post(`${sandbox.url}/sandbox/authorizations`, {
    amount: { currency_code: 'USD', value },
  });
  return (created.data as { id: string }).id;
}

it('the client and the sandbox speak the published contract through a whole authorization and webhook life', async () => {
  const webhook = await payments.createWebhook({ url: listener.url, event_types: [{ name: '*' }] });
  const id = await authorize('100.00');
  await payments.getAuthorization(id);
  const partial = await payments.captureAuthorization(
    id,
    { amount: { currency_code: 'USD', value: '30.00' } },
    'c-1',
  );
  await payments.captureAuthorization(id, { amount: { currency_code: 'USD', value: '30.00' } }, 'c-1');
  await payments.getCapture(partial.id);
  const renewed = await payments.reauthorizeAuthorization(id, { currency: 'USD', total: '70.00' }, 'r-1');
  await payments.captureAuthorization(
    renewed.id,
    { amount: { currency_code: 'USD', value: '20.00' } },
    'c-2',
  );
  await payments.voidAuthorization(id, 'v-1');
  await payments.voidAuthorization(id, 'v-2');

  await payments.getWebhook(webhook.id);
  await payments.updateWebhook(webhook.id, [{ op: 'replace', path: '/event_types', value: [{ name: '*' }] }]);
  await payments.listWebhooks();
  await payments.listWebhookEventTypes();
  const deliveries = await listener.waitFor(6);
  const delivery = deliveries[0]!;
  await payments.verifyWebhookSignature({ headers: delivery.headers, body: delivery.body }, webhook.id);

  // Refusals and errors, as the client meets them.
  await expect(payments.getAuthorization('NO-SUCH-AUTHORIZATION')).rejects.toMatchObject({ status: 404 });
  await expect(payments.captureAuthorization(id, {}, 'c-3')).rejects.toMatchObject({ status: 422 });
  await expect(payments.getWebhook('NO-SUCH-WEBHOOK')).rejects.toMatchObject({ status: 404 });
  await payments.deleteWebhook(webhook.id);

  expect(proxy.exchanges.flatMap((exchange) => contractViolations(exchange))).toEqual([]);
  // Every operation of the two documents the project uses was exercised.
  const exercised = new Set(proxy.exchanges.map((exchange) => operationOf(exchange.method, exchange.path)));
  expect(operations.filter((operation) => !exercised.has(operation))).toEqual([]);
});

it("the sandbox's minimal answers, 400 and 401 satisfy the published contract", async () => {
  const token = await requestToken(sandbox.url);
  const bearer = { authorization: `Bearer ${(token.data as { access_token: string }).access_token}` };
  const http = axios.create({ baseURL: proxy.url, headers: bearer, validateStatus: () => true });
  const before = proxy.exchanges.length;
  const id = await authorize('50.00');
  await http.post(`/v2/payments/authorizations/${id}/capture`, {
    amount: { currency_code: 'USD', value: '5.00' },
  });
  await http.post(`/v2/payments/authorizations/${id}/reauthorize`, {
    amount: { currency_code: 'USD', value: '45.00' },
  });
  await http.post(`/v2/payments/authorizations/${id}/void`);
  const invalid = await http.post(`/v2/payments/authorizations/${id}/capture`, { amount: { value: 5 } });
  expect(invalid.status).toBe(400);
  const anonymous = await http.get(`/v2/payments/authorizations/${id}`, { headers: { authorization: '' } });
  expect(anonymous.status).toBe(401);
  const anonymousHooks = await http.get('/v1/notifications/webhooks', { headers: { authorization: '' } });
  expect(anonymousHooks.status).toBe(401);

  const exchanges = proxy.exchanges.slice(before);
  expect(exchanges.map((exchange) => exchange.status)).toEqual([201, 201, 204, 400, 401, 401]);
  // The 400 answers a request that breaks the contract on purpose: only the answers are checked here.
  expect(exchanges.flatMap((exchange) => contractViolations(exchange, false))).toEqual([]);
});

it('every event the sandbox delivers satisfies the published event, authorization and capture schemas', async () => {
  expect(listener.received.length).toBeGreaterThan(0);
  const found = listener.received.flatMap((delivery) => {
    const event = JSON.parse(delivery.body.toString('utf8')) as { resource_type: string; resource: unknown };
    const resource = eventResources[event.resource_type];
    if (!resource) return [`no schema for resource_type ${event.resource_type}`];
    return [...violations('webhooks#event', event), ...violations(resource, event.resource)];
  });
  expect(found).toEqual([]);
  const types = new Set(
    listener.received.map((delivery) => JSON.parse(delivery.body.toString('utf8')).event_type),
  );
  expect([...types].sort()).toEqual([
    'PAYMENT.AUTHORIZATION.CREATED',
    'PAYMENT.AUTHORIZATION.VOIDED',
    'PAYMENT.CAPTURE.COMPLETED',
  ]);
});

it('the derived schemas refuse what PayPal never answers', () => {
  expect(violations('payments#authorization-2', { id: 'A', status: 'EXPIRED' })).toEqual([
    expect.stringContaining('/status must be equal to one of the allowed values'),
  ]);
  expect(violations('payments#error_401', { error: 'invalid_token', error_description: 'no' })).not.toEqual(
    [],
  );
  expect(violations('payments#capture-2', { id: 'C', status: 'COMPLETED', made_up: true })).not.toEqual([]);
  expect(violations('webhooks#WebhookList', {})).toEqual([]);
});
