import axios, { type AxiosInstance } from 'axios';
import { createPaymentsActivities } from '../../src/activities/payments';
import { createWebhookActivities } from '../../src/activities/webhooks';
import { LifecycleClient } from '../../src/client/lifecycle-client';
import { HELD_DELIVERIES_PATH } from '../../src/sandbox/held-deliveries';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import { VerificationStarter } from '../../src/webhooks/verification-starter';
import { WEBHOOK_ROUTE } from '../../src/webhooks/listener-url';
import { sandboxProvider, startTestApi } from '../helpers/lifecycle-stack';
import { connectClient, runTestWorker, uniqueTaskQueue } from '../helpers/temporal';
import { verificationResult } from '../helpers/webhook-stack';

/** The bearer token of the merchant's dashboard: captures and refunds made at the provider, not through the service. */
const DASHBOARD_TOKEN = 'model-dashboard-token';

export interface Release {
  order?: 'oldest' | 'newest';
  count?: number;
  copies?: number;
}

export interface Released {
  eventType: string;
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
  /** The sandbox as the merchant's dashboard and the control API reach it. */
  provider: AxiosInstance;
  /** How many transmissions the sandbox holds. */
  heldCount(): Promise<number>;
  /** Releases held transmissions to the service's listener. */
  release(release: Release): Promise<Released[]>;
  /** Waits for the verification run of each transmission released so far to end. */
  verificationsDone(): Promise<void>;
  stopWorker(): Promise<void>;
  startWorker(): Promise<void>;
  close(): Promise<void>;
}

export async function startModelStack(): Promise<ModelStack> {
  const sandbox: Sandbox = await startSandbox({ port: 0, logger: false, staticTokens: [DASHBOARD_TOKEN] });
  const provider = axios.create({
    baseURL: sandbox.url,
    headers: { authorization: `Bearer ${DASHBOARD_TOKEN}` },
    validateStatus: () => true,
  });
  const subscription = await provider.post<{ id: string }>('/sandbox/webhooks', {
    url: `${sandbox.url}${HELD_DELIVERIES_PATH}`,
    event_types: [{ name: '*' }],
  });
  if (subscription.status !== 201) throw new Error(`no subscription: ${JSON.stringify(subscription.data)}`);

  const port = sandboxProvider(sandbox, undefined, 'spec', [new URL(sandbox.url).origin]);
  const taskQueue = uniqueTaskQueue('model');
  const { client, close: closeClient } = await connectClient();
  const { app, url, http } = await startTestApi({
    lifecycles: new LifecycleClient(client, taskQueue),
    webhooks: {
      verifications: new VerificationStarter({
        client,
        taskQueue,
        mode: 'api',
        webhookId: subscription.data.id,
      }),
      bodyLimitBytes: 64 * 1024,
      headerNames: port.deliveryHeaders,
    },
  });
  const listenerUrl = `${url}${WEBHOOK_ROUTE}`;
  const workerOptions = {
    taskQueue,
    activities: {
      ...createPaymentsActivities(port),
      ...createWebhookActivities({ provider: port, listenerUrl }),
    },
  };
  let worker: { stop(): Promise<void> } | undefined = await runTestWorker(workerOptions);
  const accepted: string[] = [];

  return {
    api: http,
    provider,
    async heldCount() {
      return (await provider.get<{ held: unknown[] }>(HELD_DELIVERIES_PATH)).data.held.length;
    },
    async release(release) {
      const response = await provider.post<{ released: Released[] }>(`${HELD_DELIVERIES_PATH}/release`, {
        to: listenerUrl,
        ...release,
      });
      if (response.status !== 200) throw new Error(`release refused: ${JSON.stringify(response.data)}`);
      for (const { transmissionId, statuses } of response.data.released) {
        if (transmissionId && statuses.some((status) => status >= 200 && status < 300))
          accepted.push(transmissionId);
      }
      return response.data.released;
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
