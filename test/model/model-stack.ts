import axios, { type AxiosInstance } from 'axios';
import { createPaymentsActivities } from '../../src/activities/payments';
import { createWebhookActivities } from '../../src/activities/webhooks';
import { LifecycleClient } from '../../src/client/lifecycle-client';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import { VerificationStarter } from '../../src/webhooks/verification-starter';
import { WEBHOOK_ROUTE } from '../../src/webhooks/listener-url';
import { sandboxProvider, startTestApi } from '../helpers/lifecycle-stack';
import { connectClient, runTestWorker, uniqueTaskQueue } from '../helpers/temporal';
import { verificationResult } from '../helpers/webhook-stack';
import { startHeldDeliveries, type HeldDelivery } from './held-deliveries';

/** The bearer token of the merchant's dashboard: captures and refunds made at the provider, not through the service. */
const DASHBOARD_TOKEN = 'model-dashboard-token';

/**
 * The service's real parts for the model: the sandbox, whose webhook deliveries the model holds and releases,
 * an in-process worker it stops and starts, and the HTTP API verifying deliveries through the provider.
 */
export interface ModelStack {
  api: AxiosInstance;
  /** The sandbox as the merchant's dashboard and the control API reach it. */
  provider: AxiosInstance;
  /** Transmissions the sandbox sent that have not yet reached the service. */
  held: HeldDelivery[];
  /** Sends one held transmission to the service; answers the listener's status. */
  forward(delivery: HeldDelivery): Promise<number>;
  /** Waits for the verification run of each forwarded transmission to end. */
  verificationsDone(): Promise<void>;
  restartWorker(): Promise<void>;
  close(): Promise<void>;
}

export async function startModelStack(): Promise<ModelStack> {
  const sandbox: Sandbox = await startSandbox({ port: 0, logger: false, staticTokens: [DASHBOARD_TOKEN] });
  const relay = await startHeldDeliveries();
  const provider = axios.create({
    baseURL: sandbox.url,
    headers: { authorization: `Bearer ${DASHBOARD_TOKEN}` },
    validateStatus: () => true,
  });
  const subscription = await provider.post<{ id: string }>('/sandbox/webhooks', {
    url: relay.url,
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
  const workerOptions = {
    taskQueue,
    activities: {
      ...createPaymentsActivities(port),
      ...createWebhookActivities({ provider: port, listenerUrl: relay.url }),
    },
  };
  let worker = await runTestWorker(workerOptions);
  const forwarded: string[] = [];

  return {
    api: http,
    provider,
    held: relay.held,
    async forward(delivery) {
      const status = await relay.forward(delivery, `${url}${WEBHOOK_ROUTE}`);
      const transmissionId = delivery.headers[port.deliveryHeaders.transmission_id.toLowerCase()];
      if (status >= 200 && status < 300 && typeof transmissionId === 'string') forwarded.push(transmissionId);
      return status;
    },
    async verificationsDone() {
      for (const transmissionId of forwarded.splice(0)) await verificationResult(client, transmissionId);
    },
    async restartWorker() {
      await worker.stop();
      worker = await runTestWorker(workerOptions);
    },
    async close() {
      await worker.stop();
      await app.close();
      await closeClient();
      await relay.close();
      await sandbox.close();
    },
  };
}
