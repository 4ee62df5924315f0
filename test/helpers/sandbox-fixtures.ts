import { createServer, type Server } from 'node:http';
import axios, { type AxiosInstance } from 'axios';
import type { WebhookDelivery } from '../../src/providers/webhook-delivery';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/server';
import { eventually } from './eventually';

/** Plain HTTP to the sandbox (never the payments client): every status comes back as a response. */
export interface SandboxHarness {
  sandbox: Sandbox;
  /** Authenticated with a token from the token endpoint. */
  api: AxiosInstance;
  /** No credentials: the control API, the certificate, and 401 checks. */
  anonymous: AxiosInstance;
  close(): Promise<void>;
}

export async function requestToken(
  url: string,
  clientId = 'sandbox-client',
  clientSecret = 'sandbox-secret',
) {
  return axios.post(`${url}/v1/oauth2/token`, 'grant_type=client_credentials', {
    auth: { username: clientId, password: clientSecret },
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    validateStatus: () => true,
  });
}

export async function startHarness(options: SandboxOptions = {}): Promise<SandboxHarness> {
  const sandbox = await startSandbox({ logger: false, ...options });
  const token = await requestToken(sandbox.url, options.clientId, options.clientSecret);
  const accessToken = (token.data as { access_token: string }).access_token;
  const api = axios.create({
    baseURL: sandbox.url,
    headers: { authorization: `Bearer ${accessToken}` },
    validateStatus: () => true,
  });
  const anonymous = axios.create({ baseURL: sandbox.url, validateStatus: () => true });
  return { sandbox, api, anonymous, close: () => sandbox.close() };
}

/** Starts a harness for one test and closes it afterwards, whatever happens. */
export async function withHarness<T>(
  options: SandboxOptions,
  use: (harness: SandboxHarness) => Promise<T>,
): Promise<T> {
  const harness = await startHarness(options);
  try {
    return await use(harness);
  } finally {
    await harness.close();
  }
}

export const usd = (value: string) => ({ currency_code: 'USD', value });

/** `/v2/payments/authorizations/:id`, or one of its actions (`capture`, `void`, `reauthorize`). */
export const authorizationPath = (id: string, action = '') =>
  `/v2/payments/authorizations/${id}${action && `/${action}`}`;

export async function createAuthorization(
  harness: SandboxHarness,
  body: Record<string, unknown> = {},
): Promise<{ id: string; status: string; amount: { currency_code: string; value: string } }> {
  const response = await harness.anonymous.post('/sandbox/authorizations', {
    amount: { currency_code: 'USD', value: '100.00' },
    ...body,
  });
  if (response.status !== 201)
    throw new Error(`create authorization: ${response.status} ${JSON.stringify(response.data)}`);
  return response.data as { id: string; status: string; amount: { currency_code: string; value: string } };
}

/** The captures of an authorization, as the control API lists them. */
export async function capturesOf(harness: SandboxHarness, id: string): Promise<Array<{ id: string }>> {
  const response = await harness.anonymous.get(`/sandbox/authorizations/${id}/captures`);
  return (response.data as { captures: Array<{ id: string }> }).captures;
}

/** POSTs a raw body (sent byte for byte) to the verify endpoint. */
export function postVerifyRequest(harness: SandboxHarness, body: string | Buffer) {
  return harness.api.post('/v1/notifications/verify-webhook-signature', body, {
    headers: { 'content-type': 'application/json' },
    transformRequest: [(data: string | Buffer) => data],
  });
}

export function firstIssue(data: unknown): string | undefined {
  return (data as { details?: Array<{ issue: string }> }).details?.[0]?.issue;
}

/** A webhook listener on a random local port that answers with the next scripted status (default 200). */
export interface WebhookListener {
  url: string;
  /** The deliveries as they arrived, bodies byte for byte. */
  received: WebhookDelivery<Buffer>[];
  /** Statuses for the next deliveries, in order; afterwards 200. */
  answerWith(...statuses: number[]): void;
  waitFor(count: number, timeoutMs?: number): Promise<WebhookDelivery<Buffer>[]>;
  close(): Promise<void>;
}

export async function startWebhookListener(): Promise<WebhookListener> {
  const received: WebhookDelivery<Buffer>[] = [];
  const scripted: number[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks) });
      response.statusCode = scripted.shift() ?? 200;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/webhooks/payments`,
    received,
    answerWith: (...statuses) => scripted.push(...statuses),
    waitFor: (count, timeoutMs = 10_000) =>
      eventually(
        () => received,
        (deliveries) => deliveries.length >= count,
        { timeoutMs, intervalMs: 20, what: `${count} deliveries` },
      ),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `expect.any(String)`, typed so it can sit inside object literals without an `any`. */
export const anyString: unknown = expect.any(String);
