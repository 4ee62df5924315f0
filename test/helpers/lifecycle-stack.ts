import axios, { type AxiosInstance } from 'axios';
import { Client, Connection } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { createPaymentsActivities } from '../../src/activities/payments';
import { buildApi } from '../../src/api/server';
import { LifecycleClient } from '../../src/client/lifecycle-client';
import { PaymentsClient } from '../../src/payments/client';
import type { Authorization } from '../../src/payments/schemas';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import { createTestWorker, temporalAddress, uniqueTaskQueue } from './temporal';

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
  close(): Promise<void>;
}

export async function startLifecycleStack(options: { timeoutMs?: number } = {}): Promise<LifecycleStack> {
  const sandbox = await startSandbox({ port: 0, logger: false });
  const payments = new PaymentsClient({
    baseUrl: sandbox.url,
    credentials: { clientId: 'sandbox-client', clientSecret: 'sandbox-secret' },
    timeoutMs: options.timeoutMs ?? 2_000,
  });
  const taskQueue = uniqueTaskQueue('lifecycle');
  const connection = await Connection.connect({ address: temporalAddress() });
  const client = new Client({ connection });
  const lifecycles = new LifecycleClient(client, taskQueue);
  const app = await buildApi({
    lifecycles,
    apiKeys: [API_KEY],
    defaults: { reauthorizeAfter: '3 days', expiryPolicy: 'void' },
    logger: false,
  });
  const apiUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  const api = axios.create({
    baseURL: apiUrl,
    headers: { authorization: `Bearer ${API_KEY}` },
    validateStatus: () => true,
  });
  const provider = axios.create({ baseURL: sandbox.url, validateStatus: () => true });

  let running: { worker: Worker; done: Promise<void>; close: () => Promise<void> } | undefined;
  const startWorker = async () => {
    const { worker, close } = await createTestWorker({
      taskQueue,
      activities: createPaymentsActivities(payments),
    });
    running = { worker, done: worker.run(), close };
  };
  const stopWorker = async () => {
    if (!running) return;
    running.worker.shutdown();
    await running.done;
    await running.close();
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
    async createAuthorization(value, extra = {}) {
      const response = await provider.post<Authorization>('/sandbox/authorizations', {
        amount: { currency_code: 'USD', value },
        ...extra,
      });
      if (response.status !== 201) throw new Error(`sandbox refused: ${JSON.stringify(response.data)}`);
      return response.data;
    },
    async close() {
      await stopWorker();
      await app.close();
      await connection.close();
      await sandbox.close();
    },
  };
}
