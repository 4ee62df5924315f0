import axios, { type AxiosInstance } from 'axios';
import type { Client } from '@temporalio/client';
import { LifecycleClient } from '../../../src/client/lifecycle-client';
import type { DevServer } from '../../../src/dev/dev-server';
import type { PaymentsProvider } from '../../../src/providers/port';
import { createSigningCertificate, type SigningCertificate } from '../../../src/sandbox/paypal/certificate';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server';
import { ensureSubscription } from '../../../src/webhooks/ensure-subscription';
import { WEBHOOK_ROUTE } from '../../../src/webhooks/listener-url';
import { startTestApi } from '../../helpers/lifecycle-stack';
import { handlerWorkerOptions, startOrdersSide, type OrdersSide } from '../../helpers/nexus-stack';
import { paypalFixture } from '../../helpers/provider-fixtures';
import { startRecordingProxy } from '../../helpers/recording-proxy';
import { connectClient, runTestWorker } from '../../helpers/temporal';
import { startTestTemporal } from '../../helpers/test-temporal';
import { VerifyRefusals } from './verify-refusals';

/**
 * Everything the scenarios drive, as the tests run it: a Temporal dev server of its own (namespaces `default`
 * and `orders`), the tests' workflow bundle, the sandbox in PayPal mode delivering signed webhooks to the
 * HTTP API's intake, one worker in this process (payments, webhook and outcome activities, the payments Nexus
 * handlers, the smoke workflow's activity) on the test key's encrypting data converter, and the order
 * system's side in `orders` with its Nexus endpoint.
 */
export interface RecordingStack {
  client: Client;
  taskQueue: string;
  /** The client library, for what the API answers in part (a lifecycle's whole state). */
  lifecycles: LifecycleClient;
  /** The HTTP API, with the test API key. */
  api: AxiosInstance;
  sandbox: Sandbox;
  /** The sandbox's control API: what the payer, the bank or time do. */
  control: AxiosInstance;
  /** The provider as the merchant's dashboard reaches it, outside the service. */
  dashboard: PaymentsProvider;
  /** The key the sandbox signs deliveries with, to sign deliveries it did not send. */
  signing: SigningCertificate;
  /** The subscription the sandbox delivers to (the API's intake). */
  webhookId: string;
  refusals: VerifyRefusals;
  orders: OrdersSide;
  close(): Promise<void>;
}

/** Steps run in order; each close undoes one, the last first, whatever failed. */
class Closers {
  private readonly steps: Array<() => Promise<unknown>> = [];
  add(close: () => Promise<unknown>): void {
    this.steps.unshift(close);
  }
  async closeAll(): Promise<void> {
    for (const close of this.steps) await close().catch((error: unknown) => console.error(error));
  }
}

async function startTemporal(closers: Closers): Promise<DevServer> {
  const { server } = await startTestTemporal();
  closers.add(() => server.stop());
  return server;
}

export async function startRecordingStack(): Promise<RecordingStack> {
  const closers = new Closers();
  try {
    await startTemporal(closers);
    const signing = await createSigningCertificate(new Date());
    const sandbox = await startSandbox({
      port: 0,
      logger: false,
      signingCertificate: signing,
      deliveryRetry: { attempts: 5, initialDelayMs: 200 },
    });
    closers.add(() => sandbox.close());
    const refusals = new VerifyRefusals();
    const proxy = await startRecordingProxy(sandbox.url, refusals.rewrite);
    closers.add(() => proxy.close());
    // The worker's calls go through the proxy: the sandbox as the worker sees it.
    const throughProxy: Sandbox = { ...sandbox, url: proxy.url };

    // A fixed name: the server is this run's own, and recorded histories differ only where the runs do.
    const taskQueue = 'histories';
    const temporal = await connectClient();
    closers.add(() => temporal.close());
    const { client } = temporal;
    const lifecycles = new LifecycleClient(client, taskQueue);
    const started = await startTestApi({
      lifecycles,
      ...paypalFixture.webhookIntake(client, taskQueue),
    });
    closers.add(() => started.app.close());
    const listenerUrl = `${started.url}${WEBHOOK_ROUTE}`;

    const handlers = handlerWorkerOptions(taskQueue, paypalFixture.provider(throughProxy));
    const worker = await runTestWorker({
      ...handlers,
      activities: {
        ...handlers.activities,
        ...paypalFixture.activities(throughProxy, listenerUrl),
        greet: async (name: string) => `hello, ${name}`,
      },
    });
    closers.add(() => worker.stop());
    const { webhookId } = await ensureSubscription(client, taskQueue, { listenerUrl });
    const orders = await startOrdersSide(taskQueue);
    closers.add(() => orders.close());

    return {
      client,
      taskQueue,
      lifecycles,
      api: started.http,
      sandbox,
      control: axios.create({ baseURL: sandbox.url, validateStatus: () => true }),
      dashboard: paypalFixture.provider(sandbox),
      signing,
      webhookId,
      refusals,
      orders,
      close: () => closers.closeAll(),
    };
  } catch (error) {
    await closers.closeAll();
    throw error;
  }
}
