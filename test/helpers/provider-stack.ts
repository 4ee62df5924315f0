import type { AxiosInstance } from 'axios';
import type { Client } from '@temporalio/client';
import type { ApiOptions } from '../../src/api/server';
import { createOutcomeActivities } from '../../src/activities/payment-outcome';
import { LifecycleClient } from '../../src/client/lifecycle-client';
import { paymentsServiceHandler } from '../../src/nexus/handlers';
import type { PaymentsProvider } from '../../src/providers/port';
import type { Sandbox } from '../../src/sandbox/server';
import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { startTestApi } from './lifecycle-stack';
import { ordersCallEverything, startOrdersSide, type OrdersSide } from './nexus-stack';
import type { ProviderFixture } from './provider-fixtures';
import { connectClient, runTestWorker, uniqueTaskQueue } from './temporal';

// The deployment's defaults: no REAUTHORIZE_AFTER, so each provider's hold keeps its own reauthorization.
const defaults = { expiryPolicy: 'void', lateEventWindow: '3 days' } as const;

/**
 * The lifecycle's real parts on one provider (a fixture): its sandbox, a worker hosting the provider's
 * activities and the payments Nexus handlers, the API with the provider's webhook intake (the sandbox delivers
 * its events there), and the order system's side in the `orders` namespace.
 */
export interface ProviderStack {
  fixture: ProviderFixture;
  sandbox: Sandbox;
  client: Client;
  taskQueue: string;
  lifecycles: LifecycleClient;
  api: AxiosInstance;
  orders: OrdersSide;
  /** The provider port over the sandbox: what a merchant's dashboard does, under keys of its own. */
  dashboard: PaymentsProvider;
  /** A payment authorized at the sandbox (see ProviderFixture.authorize); answers its id. */
  authorize(value: string, options?: { severalCaptures?: boolean }): Promise<string>;
  /** Authorizes `value` and starts its lifecycle through the API (201); answers the authorization id. */
  startLifecycle(
    value?: string,
    body?: Record<string, unknown>,
    options?: { severalCaptures?: boolean },
  ): Promise<string>;
  /** The API's address, e.g. http://127.0.0.1:40123. */
  apiUrl: string;
  /** Where the sandbox delivers this provider's events. */
  listenerUrl: string;
  /** The lifecycle's state as the API answers it. */
  state(authorizationId: string): Promise<LifecycleState>;
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `apiOptions` change how the API is built: its limits (the suites' raised ones by default), trusted proxies,
 * its callers. `subscribe: false` leaves the sandbox without a subscription: no event reaches the lifecycles.
 */
export async function startProviderStack(
  fixture: ProviderFixture,
  apiOptions: Pick<ApiOptions, 'limits' | 'trustProxy'> & Partial<Pick<ApiOptions, 'callers'>> = {},
  options: { subscribe?: boolean } = {},
): Promise<ProviderStack> {
  const sandbox = await fixture.startSandbox({ deliveryRetry: { attempts: 5, initialDelayMs: 200 } });
  const taskQueue = uniqueTaskQueue(`stack-${fixture.name}`);
  const { client, close: closeClient } = await connectClient();
  const lifecycles = new LifecycleClient(client, taskQueue);
  const started = await startTestApi({
    lifecycles,
    providers: [fixture.name],
    ...fixture.webhookIntake(client, taskQueue),
    ...apiOptions,
  });
  const listenerUrl = `${started.url}${fixture.webhookRoute}`;

  let running: { stop: () => Promise<void> } | undefined;
  const startWorker = async () => {
    running = await runTestWorker({
      taskQueue,
      activities: { ...fixture.activities(sandbox, listenerUrl), ...createOutcomeActivities() },
      nexusServices: [
        paymentsServiceHandler({ taskQueue, defaults, providers: [fixture.name], ...ordersCallEverything }),
      ],
    });
  };
  const stopWorker = async () => {
    await running?.stop();
    running = undefined;
  };
  await startWorker();
  if (options.subscribe !== false) await fixture.subscribe(sandbox, client, taskQueue, listenerUrl);
  const orders = await startOrdersSide(taskQueue);
  const api = started.http;

  const authorize: ProviderStack['authorize'] = (value, options) =>
    fixture.authorize(sandbox, value, options);
  return {
    fixture,
    sandbox,
    client,
    taskQueue,
    lifecycles,
    api,
    apiUrl: started.url,
    listenerUrl,
    orders,
    dashboard: fixture.provider(sandbox),
    authorize,
    async startLifecycle(value = '100.00', body = {}, options = {}) {
      const authorizationId = await authorize(value, options);
      const response = await api.post('/v1/lifecycles', { authorizationId, ...body });
      if (response.status !== 201) throw new Error(`lifecycle not started: ${JSON.stringify(response.data)}`);
      return authorizationId;
    },
    async state(authorizationId) {
      return (await api.get(`/v1/lifecycles/${authorizationId}`)).data as LifecycleState;
    },
    startWorker,
    stopWorker,
    async close() {
      await orders.close();
      await stopWorker();
      await started.app.close();
      await closeClient();
      await sandbox.close();
    },
  };
}

/**
 * The stack of a `describe.each(providerFixtures)` block: started before its first test, closed after its
 * last; faults armed at the sandbox are cleared after each test. The object is filled in once started.
 */
export function useProviderStack(fixture: ProviderFixture): ProviderStack {
  const stack = {} as ProviderStack;
  let started: ProviderStack | undefined;
  beforeAll(async () => {
    started = await startProviderStack(fixture);
    Object.assign(stack, started);
  });
  afterEach(async () => {
    await fetch(`${started?.sandbox.url}/sandbox/faults`, { method: 'DELETE' }).catch(() => undefined);
  });
  afterAll(async () => {
    await started?.close();
  });
  return stack;
}
