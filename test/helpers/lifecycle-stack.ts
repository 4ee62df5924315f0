import { clearKeyCaller } from '../../src/api-callers';
import { randomUUID } from 'node:crypto';
import axios, { type AxiosInstance } from 'axios';
import type { Client } from '@temporalio/client';
import { createProviderActivities } from '../../src/activities/payments';
import { buildApi, type ApiOptions } from '../../src/api/server';
import { LifecycleClient } from '../../src/client/lifecycle-client';
import { PayPalClient } from '../../src/providers/paypal/client';
import type { PaymentsDialectName } from '../../src/providers/paypal/dialects';
import type { Authorization } from '../../src/providers/paypal/schemas';
import type { PaymentsProvider } from '../../src/providers/port';
import { createPayPalProvider, type PayPalProviderSettings } from '../../src/providers/registry';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import { openApiLimits } from './api-limits';
import { connectClient, runTestWorker, uniqueTaskQueue, type TestWorkerOptions } from './temporal';

export const API_KEY = 'test-api-key';

/**
 * The lifecycle's real parts for one test file: the sandbox provider over HTTP, a worker on the shared
 * dev server, the HTTP API on a free port, and clients for both.
 */
export interface LifecycleStack {
  sandbox: Sandbox;
  taskQueue: string;
  client: Client;
  lifecycles: LifecycleClient;
  api: AxiosInstance;
  provider: AxiosInstance;
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  createAuthorization(value: string, extra?: Record<string, unknown>): Promise<Authorization>;
  /** Authorizes `value` at the sandbox and starts its lifecycle through the API (201); answers its id. */
  startLifecycle(value?: string, body?: Record<string, unknown>): Promise<string>;
  /** The captures the provider holds for an authorization. */
  capturesAtProvider(authorizationId: string): Promise<Array<{ id: string; amount: { value: string } }>>;
  close(): Promise<void>;
}

/** A request's options under a fresh Idempotency-Key: capture, refund and reauthorize need one. */
export function freshKey() {
  return { headers: { 'idempotency-key': randomUUID() } };
}

/** Where the sandbox answers, with its default credentials. */
function sandboxSettings(
  sandbox: Sandbox,
  timeoutMs = 2_000,
  dialect: PaymentsDialectName = 'spec',
): PayPalProviderSettings {
  return {
    baseUrl: sandbox.url,
    dialect,
    credentials: { clientId: 'sandbox-client', clientSecret: 'sandbox-secret' },
    timeoutMs,
  };
}

/** The client for the sandbox's interfaces A and B, with its default credentials. */
export function sandboxPaymentsClient(
  sandbox: Sandbox,
  timeoutMs?: number,
  dialect?: PaymentsDialectName,
): PayPalClient {
  return new PayPalClient(sandboxSettings(sandbox, timeoutMs, dialect));
}

/** The sandbox behind the provider port, as the worker's activities take it. */
export function sandboxProvider(
  sandbox: Sandbox,
  timeoutMs?: number,
  dialect?: PaymentsDialectName,
  certificateHosts?: readonly string[],
): PaymentsProvider {
  return createPayPalProvider({ ...sandboxSettings(sandbox, timeoutMs, dialect), certificateHosts });
}

/** Authorizes a payment at the sandbox through its control API. */
export async function createSandboxAuthorization(
  provider: AxiosInstance,
  value: string,
  extra: Record<string, unknown> = {},
): Promise<Authorization> {
  const response = await provider.post<Authorization>('/sandbox/authorizations', {
    amount: { currency_code: 'USD', value },
    ...extra,
  });
  if (response.status !== 201) throw new Error(`sandbox refused: ${JSON.stringify(response.data)}`);
  return response.data;
}

/** The HTTP API on a free port with the test key, and an axios instance that sends it. */
export async function startTestApi(
  options: Pick<ApiOptions, 'lifecycles' | 'webhooks' | 'limits' | 'codec' | 'providers' | 'trustProxy'> &
    Partial<Pick<ApiOptions, 'callers'>>,
) {
  const app = await buildApi({
    limits: openApiLimits,
    callers: [clearKeyCaller([API_KEY])],
    ...options,
    defaults: { expiryPolicy: 'void', lateEventWindow: '3 days' },
    logger: false,
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const http = axios.create({
    baseURL: url,
    headers: { authorization: `Bearer ${API_KEY}` },
    validateStatus: () => true,
  });
  return { app, url, http };
}

/** A test worker hosting `activities` on a task queue of its own, and the HTTP API in front of it. */
export async function startWorkerAndApi(name: string, activities: TestWorkerOptions['activities']) {
  const taskQueue = uniqueTaskQueue(name);
  const temporal = await connectClient();
  const worker = await runTestWorker({ taskQueue, activities });
  const started = await startTestApi({ lifecycles: new LifecycleClient(temporal.client, taskQueue) });
  return {
    api: started.http,
    close: async () => {
      await worker.stop();
      await started.app.close();
      await temporal.close();
    },
  };
}

export interface LifecycleStackOptions {
  /** The worker's payments client's time-out. */
  timeoutMs?: number;
  /** The sandbox's mode; the client speaks the same dialect. */
  mode?: PaymentsDialectName;
  /** A proxy it starts, through which the worker's client reaches the sandbox. */
  through?: (sandboxUrl: string) => Promise<{ url: string; close(): Promise<void> }>;
  /** The worker's options; by default the payments activities on the stack's task queue. */
  worker?: (taskQueue: string, payments: PaymentsProvider) => TestWorkerOptions;
}

export async function startLifecycleStack(options: LifecycleStackOptions = {}): Promise<LifecycleStack> {
  const sandbox = await startSandbox({ port: 0, logger: false, mode: options.mode });
  const proxy = await options.through?.(sandbox.url);
  const payments = sandboxProvider(
    proxy ? { ...sandbox, url: proxy.url } : sandbox,
    options.timeoutMs,
    options.mode,
  );
  const taskQueue = uniqueTaskQueue('lifecycle');
  const { client, close: closeClient } = await connectClient();
  const lifecycles = new LifecycleClient(client, taskQueue);
  const { app, http: api } = await startTestApi({ lifecycles });
  const provider = axios.create({ baseURL: sandbox.url, validateStatus: () => true });

  let running: { stop: () => Promise<void> } | undefined;
  const startWorker = async () => {
    running = await runTestWorker(
      options.worker?.(taskQueue, payments) ?? { taskQueue, activities: createProviderActivities(payments) },
    );
  };
  const stopWorker = async () => {
    await running?.stop();
    running = undefined;
  };
  await startWorker();

  return {
    sandbox,
    taskQueue,
    client,
    lifecycles,
    api,
    provider,
    startWorker,
    stopWorker,
    createAuthorization: (value, extra) => createSandboxAuthorization(provider, value, extra),
    async startLifecycle(value = '100.00', body = {}) {
      const authorization = await createSandboxAuthorization(provider, value);
      const response = await api.post('/v1/lifecycles', { authorizationId: authorization.id, ...body });
      if (response.status !== 201) throw new Error(`lifecycle not started: ${JSON.stringify(response.data)}`);
      return authorization.id;
    },
    async capturesAtProvider(authorizationId) {
      const response = await provider.get(`/sandbox/authorizations/${authorizationId}/captures`);
      return (response.data as { captures: Array<{ id: string; amount: { value: string } }> }).captures;
    },
    async close() {
      await stopWorker();
      await app.close();
      await closeClient();
      await proxy?.close();
      await sandbox.close();
    },
  };
}

/**
 * The stack of a test file: started before its first test, closed after its last; faults armed at the sandbox
 * are cleared after each test. The object answered is filled in when the stack has started.
 */
export function useLifecycleStack(options: LifecycleStackOptions = {}): LifecycleStack {
  const stack = {} as LifecycleStack;
  let started: LifecycleStack | undefined;
  beforeAll(async () => {
    started = await startLifecycleStack(options);
    Object.assign(stack, started);
  });
  afterEach(async () => {
    await started?.provider.delete('/sandbox/faults');
  });
  afterAll(async () => {
    await started?.close();
  });
  return stack;
}
