import axios, { type AxiosAdapter, type InternalAxiosRequestConfig } from 'axios';
import {
  AuthorizationStatus,
  CaptureStatus,
  Client,
  Environment,
  PaymentsController,
  RefundStatus,
} from '@paypal/paypal-server-sdk';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import { startRecordingProxy } from '../helpers/recording-proxy';

// PayPal's official server SDK as a real client of the sandbox in `paypal` mode: whatever the sandbox
// answers, the SDK must parse. The SDK knows only PayPal's own hosts, so its HTTP adapter sends each request
// to the sandbox instead (through a recording proxy, to see the headers it sent).

const PAYPAL_SANDBOX_HOST = 'https://api-m.sandbox.paypal.com';

let sandbox: Sandbox;
let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
let payments: PaymentsController;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, logger: false, mode: 'paypal' });
  proxy = await startRecordingProxy(sandbox.url);
  const httpAdapter = axios.getAdapter('http');
  const toSandbox: AxiosAdapter = (config: InternalAxiosRequestConfig) =>
    httpAdapter({ ...config, url: config.url?.replace(PAYPAL_SANDBOX_HOST, proxy.url) });
  const client = new Client({
    environment: Environment.Sandbox,
    clientCredentialsAuthCredentials: {
      oAuthClientId: 'sandbox-client',
      oAuthClientSecret: 'sandbox-secret',
    },
    timeout: 5_000,
    unstable_httpClientOptions: { adapter: toSandbox },
  });
  payments = new PaymentsController(client);
});
afterAll(async () => {
  await proxy.close();
  await sandbox.close();
});

async function authorize(value: string): Promise<string> {
  const created = await axios.post(`${sandbox.url}/sandbox/authorizations`, {
    amount: { currency_code: 'USD', value },
  });
  return (created.data as { id: string }).id;
}

const usd = (value: string) => ({ currencyCode: 'USD', value });

it('gets, captures (partially, with a request id, replayed), reauthorizes and voids, each parsed by the SDK', async () => {
  const authorizationId = await authorize('100.00');

  const read = await payments.getAuthorizedPayment({ authorizationId });
  expect(read.statusCode).toBe(200);
  expect(read.result).toMatchObject({
    id: authorizationId,
    status: AuthorizationStatus.Created,
    amount: usd('100.00'),
  });

  const capture = () =>
    payments.captureAuthorizedPayment({
      authorizationId,
      paypalRequestId: 'sdk-capture-1',
      prefer: 'return=representation',
      body: { amount: usd('30.00'), finalCapture: false },
    });
  const captured = await capture();
  expect(captured.statusCode).toBe(201);
  expect(captured.result).toMatchObject({
    status: CaptureStatus.Completed,
    amount: usd('30.00'),
    finalCapture: false,
  });
  const replayed = await capture();
  expect(replayed.result.id).toBe(captured.result.id);
  const captures = await axios.get(`${sandbox.url}/sandbox/authorizations/${authorizationId}/captures`);
  expect((captures.data as { captures: unknown[] }).captures).toHaveLength(1);

  // Without Prefer the answer is minimal, and the SDK still parses it.
  const minimal = await payments.captureAuthorizedPayment({
    authorizationId,
    paypalRequestId: 'sdk-capture-2',
    body: { amount: usd('10.00') },
  });
  expect(minimal.statusCode).toBe(201);
  expect(Object.keys(JSON.parse(minimal.body as string) as object).sort()).toEqual(['id', 'links', 'status']);
  expect(minimal.result).toMatchObject({ status: CaptureStatus.Completed });

  const readCapture = await payments.getCapturedPayment({ captureId: captured.result.id! });
  expect(readCapture.result).toMatchObject({ id: captured.result.id, amount: usd('30.00') });

  const reauthorized = await payments.reauthorizePayment({
    authorizationId,
    paypalRequestId: 'sdk-reauthorize-1',
    prefer: 'return=representation',
    body: { amount: usd('60.00') },
  });
  expect(reauthorized.statusCode).toBe(201);
  expect(reauthorized.result).toMatchObject({ status: AuthorizationStatus.Created, amount: usd('60.00') });
  expect(reauthorized.result.id).not.toBe(authorizationId);

  const voided = await payments.voidPayment({ authorizationId, prefer: 'return=representation' });
  expect(voided.statusCode).toBe(200);
  expect(voided.result).toMatchObject({ id: authorizationId, status: AuthorizationStatus.Voided });

  const other = await authorize('5.00');
  const voidedMinimal = await payments.voidPayment({ authorizationId: other });
  expect(voidedMinimal.statusCode).toBe(204);
  expect(voidedMinimal.result).toBeNull();

  const sent = proxy.exchanges.filter((exchange) => exchange.path.endsWith('/capture'));
  expect(sent.map((exchange) => exchange.requestHeaders['paypal-request-id'])).toEqual([
    'sdk-capture-1',
    'sdk-capture-1',
    'sdk-capture-2',
  ]);
});

it('refunds a capture in part (with a request id, replayed) and in full, each parsed by the SDK', async () => {
  const authorizationId = await authorize('50.00');
  const captured = await payments.captureAuthorizedPayment({
    authorizationId,
    paypalRequestId: 'sdk-refund-capture',
    prefer: 'return=representation',
    body: { amount: usd('50.00'), finalCapture: true },
  });
  const captureId = captured.result.id!;

  const refund = () =>
    payments.refundCapturedPayment({
      captureId,
      paypalRequestId: 'sdk-refund-1',
      prefer: 'return=representation',
      body: { amount: usd('20.00'), noteToPayer: 'partial refund' },
    });
  const refunded = await refund();
  expect(refunded.statusCode).toBe(201);
  expect(refunded.result).toMatchObject({ status: RefundStatus.Completed, amount: usd('20.00') });
  const replayed = await refund();
  expect(replayed.result.id).toBe(refunded.result.id);

  // Without Prefer the answer is minimal; without an amount, all that is left is refunded.
  const rest = await payments.refundCapturedPayment({ captureId, paypalRequestId: 'sdk-refund-2' });
  expect(rest.statusCode).toBe(201);
  expect(Object.keys(JSON.parse(rest.body as string) as object).sort()).toEqual(['id', 'links', 'status']);
  const readRest = await payments.getRefund({ refundId: rest.result.id! });
  expect(readRest.result).toMatchObject({ status: RefundStatus.Completed, amount: usd('30.00') });

  const readCapture = await payments.getCapturedPayment({ captureId });
  expect(readCapture.result).toMatchObject({ id: captureId, status: CaptureStatus.Refunded });
});
