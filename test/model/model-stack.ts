import axios, { type AxiosInstance } from 'axios';
import { LifecycleClient } from '../../src/client/lifecycle-client';
import { HELD_DELIVERIES_PATH } from '../../src/sandbox/held-deliveries';
import { lifecycleWorkflowId } from '../../src/workflows/lifecycle/definitions';
import type { Sandbox } from '../../src/sandbox/server';
import { startTestApi } from '../helpers/lifecycle-stack';
import { connectClient, runTestWorker, uniqueTaskQueue } from '../helpers/temporal';
import { verificationResult } from '../helpers/webhook-stack';
import type { ModelProvider } from './model-provider';
import type { ProviderLedger } from './provider-ledger';

export interface Release {
  order?: 'oldest' | 'newest';
  count?: number;
  copies?: number;
}

/** A held transmission, as the sandbox lists it. */
export interface HeldTransmission {
  eventId: string;
  eventType: string;
  transmissionId?: string;
}

export interface Released {
  eventId: string;
  eventType: string;
  /** PayPal's transmission id; Stripe sends none, its deliveries are known by the event id. */
  transmissionId?: string;
  statuses: number[];
}

/**
 * The service's real parts for the model: the sandbox, whose webhook deliveries are held until the model
 * releases them, an in-process worker it stops and starts, and the HTTP API verifying deliveries through the
 * provider.
 */
export interface ModelStack {
  api: AxiosInstance;
  /** The provider the run is on: its books, its dashboard and its bank. */
  books: ModelProvider;
  /** The sandbox as the merchant's dashboard and the control API reach it. */
  provider: AxiosInstance;
  /** The provider's books of the lifecycle started on `authorizationId`. */
  ledger(authorizationId: string): Promise<ProviderLedger>;
  /** How many transmissions the sandbox holds. */
  heldCount(): Promise<number>;
  /** Releases held transmissions to the service's listener. */
  release(release: Release): Promise<Released[]>;
  /** Throws held transmissions away, never delivered: the provider gave up on them. */
  discard(discard: Omit<Release, 'copies'>): Promise<HeldTransmission[]>;
  /**
   * Terminates the lifecycle's run through Temporal, from outside the lifecycle; false when no run of it is
   * running (it closed).
   */
  terminate(authorizationId: string): Promise<boolean>;
  /** Waits for the verification run of each transmission released so far to end. */
  verificationsDone(): Promise<void>;
  stopWorker(): Promise<void>;
  startWorker(): Promise<void>;
  close(): Promise<void>;
}

export async function startModelStack(books: ModelProvider): Promise<ModelStack> {
  const sandbox: Sandbox = await books.startSandbox(books.dashboardToken);
  const provider = axios.create({
    baseURL: sandbox.url,
    headers: { authorization: `Bearer ${books.dashboardToken}` },
    validateStatus: () => true,
  });
  const subscription = await provider.post<{ id: string }>('/sandbox/webhooks', {
    url: `${sandbox.url}${HELD_DELIVERIES_PATH}`,
    event_types: [{ name: '*' }],
  });
  if (subscription.status !== 201) throw new Error(`no subscription: ${JSON.stringify(subscription.data)}`);

  const taskQueue = uniqueTaskQueue('model');
  const { client, close: closeClient } = await connectClient();
  const { app, url, http } = await startTestApi({
    lifecycles: new LifecycleClient(client, taskQueue),
    ...books.intake(sandbox, client, taskQueue, subscription.data.id),
  });
  const listenerUrl = `${url}${books.webhookRoute}`;
  const workerOptions = { taskQueue, activities: books.activities(sandbox, listenerUrl) };
  let worker: { stop(): Promise<void> } | undefined = await runTestWorker(workerOptions);
  const accepted: string[] = [];

  return {
    api: http,
    books,
    provider,
    ledger: (authorizationId) => books.readLedger(provider, http, authorizationId),
    async heldCount() {
      return (await provider.get<{ held: unknown[] }>(HELD_DELIVERIES_PATH)).data.held.length;
    },
    async release(release) {
      const response = await provider.post<{ released: Released[] }>(`${HELD_DELIVERIES_PATH}/release`, {
        to: listenerUrl,
        ...release,
      });
      if (response.status !== 200) throw new Error(`release refused: ${JSON.stringify(response.data)}`);
      for (const { transmissionId, eventId, statuses } of response.data.released) {
        const run = transmissionId ?? eventId;
        if (run && statuses.some((status) => status >= 200 && status < 300)) accepted.push(run);
      }
      return response.data.released;
    },
    async discard(discard) {
      const response = await provider.post<{ discarded: HeldTransmission[] }>(
        `${HELD_DELIVERIES_PATH}/discard`,
        discard,
      );
      if (response.status !== 200) throw new Error(`discard refused: ${JSON.stringify(response.data)}`);
      return response.data.discarded;
    },
    async terminate(authorizationId) {
      const handle = client.workflow.getHandle(lifecycleWorkflowId(authorizationId));
      if ((await handle.describe()).status.name !== 'RUNNING') return false;
      await handle.terminate('the money model ended it');
      return true;
    },
    async verificationsDone() {
      for (const transmissionId of accepted.splice(0)) await verificationResult(client, transmissionId);
    },
    async stopWorker() {
      await worker?.stop();
      worker = undefined;
    },
    async startWorker() {
      worker ??= await runTestWorker(workerOptions);
    },
    async close() {
      await worker?.stop();
      await app.close();
      await closeClient();
      await sandbox.close();
    },
  };
}
