import axios from 'axios';
import { PayPalClient } from '../../src/providers/paypal/client';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import {
  eventResources,
  operationOf,
  operations,
  responseSchema,
  violations,
} from '../fixtures/contract/paypal-contract';
import { startRecordingProxy, type Exchange } from '../helpers/recording-proxy';
import { requestToken, startWebhookListener, type WebhookListener } from '../helpers/sandbox-fixtures';

// Contract tests from PayPal's published documents (schemas derived into test/fixtures/contract): every
// request the client sends and every answer and event the sandbox produces in `paypal` mode validates against
// them. A recording proxy between the two sees the exact bytes.

let sandbox: Sandbox;
let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
let listener: WebhookListener;
let payments: PayPalClient;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, logger: false, mode: 'paypal' });
  proxy = await startRecordingProxy(sandbox.url);
  listener = await startWebhookListener();
  payments = new PayPalClient({
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

/** Raw HTTP to the provider through the proxy, for what the client never sends (minimal answers, reads). */
async function providerHttp() {
  const token = await requestToken(sandbox.url);
  const bearer = { authorization: `Bearer ${(token.data as { access_token: string }).access_token}` };
  return axios.create({ baseURL: proxy.url, headers: bearer, validateStatus: () => true });
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
  const second = await payments.captureAuthorization(
    renewed.id,
    { amount: { currency_code: 'USD', value: '20.00' } },
    'c-2',
  );
  await payments.voidAuthorization(id, 'v-1');
  await payments.voidAuthorization(id, 'v-2');

  // Refunds: in part (representation, replayed by its request id), the rest with PayPal's default minimal
  // answer, a read, then refusals: more than is left, a fully refunded capture, a refund id as a capture.
  const refundPart = () =>
    payments.refundCapture(
      partial.id,
      {
        amount: { currency_code: 'USD', value: '10.00' },
        invoice_id: 'INV-REFUND-1',
        custom_id: 'RMA-42',
        note_to_payer: 'Returned item',
      },
      'rf-1',
    );
  const refunded = await refundPart();
  expect(refunded).toMatchObject({ status: 'COMPLETED', amount: { currency_code: 'USD', value: '10.00' } });
  expect((await refundPart()).id).toBe(refunded.id);
  const http = await providerHttp();
  const rest = await http.post(
    `/v2/payments/captures/${partial.id}/refund`,
    {},
    { headers: { 'PayPal-Request-Id': 'rf-2' } },
  );
  expect(rest.status).toBe(201);
  expect(Object.keys(rest.data as object).sort()).toEqual(['id', 'links', 'status']);
  const read = await http.get(`/v2/payments/refunds/${(rest.data as { id: string }).id}`);
  expect(read.data).toMatchObject({ amount: { value: '20.00' }, status: 'COMPLETED' });
  const refusedWith = (issue: string) => ({ status: 422, details: [expect.objectContaining({ issue })] });
  await expect(
    payments.refundCapture(second.id, { amount: { currency_code: 'USD', value: '20.01' } }, 'rf-3'),
  ).rejects.toMatchObject(refusedWith('REFUND_AMOUNT_EXCEEDED'));
  await expect(payments.refundCapture(partial.id, {}, 'rf-4')).rejects.toMatchObject(
    refusedWith('CAPTURE_FULLY_REFUNDED'),
  );
  await expect(payments.refundCapture(refunded.id, {}, 'rf-5')).rejects.toMatchObject({ status: 404 });
  // A chargeback (sandbox control, not PayPal's API) reverses the second capture; no refund after it.
  const reversal = await axios.post(`${sandbox.url}/sandbox/captures/${second.id}/reverse`);
  expect(violations('payments#refund', reversal.data)).toEqual([]);
  await expect(payments.refundCapture(second.id, {}, 'rf-6')).rejects.toMatchObject(
    refusedWith('REFUND_NOT_PERMITTED_DUE_TO_CHARGEBACK'),
  );

  await payments.getWebhook(webhook.id);
  await payments.updateWebhook(webhook.id, [{ op: 'replace', path: '/event_types', value: [{ name: '*' }] }]);
  await payments.listWebhooks();
  await payments.listWebhookEventTypes();
  const deliveries = await listener.waitFor(9);
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

it("the sandbox's minimal answers, 400, 401 and 404 satisfy the published contract", async () => {
  const http = await providerHttp();
  const before = proxy.exchanges.length;
  const id = await authorize('50.00');
  const captured = await http.post(`/v2/payments/authorizations/${id}/capture`, {
    amount: { currency_code: 'USD', value: '5.00' },
  });
  await http.post(`/v2/payments/authorizations/${id}/reauthorize`, {
    amount: { currency_code: 'USD', value: '45.00' },
  });
  await http.post(`/v2/payments/authorizations/${id}/void`);
  const invalid = await http.post(`/v2/payments/authorizations/${id}/capture`, { amount: { value: 5 } });
  expect(invalid.status).toBe(400);
  const refund = `/v2/payments/captures/${(captured.data as { id: string }).id}/refund`;
  await http.post(refund, { amount: { currency_code: 'USD', value: 1 } });
  await http.post(refund, { note_to_payer: 'x'.repeat(256) });
  // PayPal's refund answers only a custom_id of letters, digits and `-_.,`: the sandbox refuses the rest
  // rather than answer what PayPal never would.
  const unanswerable = await http.post(
    refund,
    { custom_id: 'RMA 42' },
    { headers: { Prefer: 'return=representation' } },
  );
  expect(unanswerable.data).toMatchObject({ details: [{ field: '/custom_id' }] });
  await http.get('/v2/payments/refunds/NO-SUCH-REFUND');
  const anonymous = await http.get(`/v2/payments/authorizations/${id}`, { headers: { authorization: '' } });
  expect(anonymous.status).toBe(401);
  await http.post(refund, {}, { headers: { authorization: '' } });
  const anonymousHooks = await http.get('/v1/notifications/webhooks', { headers: { authorization: '' } });
  expect(anonymousHooks.status).toBe(401);

  const exchanges = proxy.exchanges.slice(before);
  expect(exchanges.map((exchange) => exchange.status)).toEqual([
    201, 201, 204, 400, 400, 400, 400, 404, 401, 401, 401,
  ]);
  // The 400 answers a request that breaks the contract on purpose: only the answers are checked here.
  expect(exchanges.flatMap((exchange) => contractViolations(exchange, false))).toEqual([]);
});

it('every event the sandbox delivers satisfies the published event, authorization, capture and refund schemas', async () => {
  expect(listener.received.length).toBeGreaterThan(0);
  const events = listener.received.map(
    (delivery) =>
      JSON.parse(delivery.body.toString('utf8')) as {
        event_type: string;
        resource_type: string;
        resource: { links?: { rel: string; href: string }[] };
      },
  );
  const found = events.flatMap((event) => {
    const resource = eventResources[event.resource_type];
    if (!resource) return [`no schema for resource_type ${event.resource_type}`];
    return [...violations('webhooks#event', event), ...violations(resource, event.resource)];
  });
  expect(found).toEqual([]);
  // A refund or reversal points `up` to the capture it takes money back from.
  const refunds = events.filter((event) => event.resource_type === 'refund');
  expect(refunds.map((event) => event.event_type).sort()).toEqual([
    'PAYMENT.CAPTURE.REFUNDED',
    'PAYMENT.CAPTURE.REFUNDED',
    'PAYMENT.CAPTURE.REVERSED',
  ]);
  for (const event of refunds) {
    expect(event.resource.links).toContainEqual(
      expect.objectContaining({ rel: 'up', href: expect.stringMatching(/\/v2\/payments\/captures\/[^/]+$/) }),
    );
  }
  const types = new Set(events.map((event) => event.event_type));
  expect([...types].sort()).toEqual([
    'PAYMENT.AUTHORIZATION.CREATED',
    'PAYMENT.AUTHORIZATION.VOIDED',
    'PAYMENT.CAPTURE.COMPLETED',
    'PAYMENT.CAPTURE.REFUNDED',
    'PAYMENT.CAPTURE.REVERSED',
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
  expect(violations('payments#refund', { id: 'R', status: 'REFUNDED' })).toEqual([
    expect.stringContaining('/status must be equal to one of the allowed values'),
  ]);
  expect(
    violations('payments#captures.refund-422', {
      name: 'UNPROCESSABLE_ENTITY',
      message:
        'The requested action could not be performed, semantically incorrect, or failed business validation.',
      details: [{ issue: 'MAX_CAPTURE_AMOUNT_EXCEEDED' }],
    }),
  ).toEqual([expect.stringContaining('/details/0/issue must be equal to one of the allowed values')]);
  expect(violations('payments#refund_request', { amount: { currency_code: 'USD', value: 1 } })).not.toEqual(
    [],
  );
  expect(violations('webhooks#WebhookList', {})).toEqual([]);
});
