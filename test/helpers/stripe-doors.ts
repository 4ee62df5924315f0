import type { AxiosInstance } from 'axios';
import type { Client } from '@temporalio/client';
import { createOutcomeActivities } from '../../src/activities/payment-outcome';
import { createProviderActivities } from '../../src/activities/payments';
import { LifecycleClient } from '../../src/client/lifecycle-client';
import { paymentsServiceHandler } from '../../src/nexus/handlers';
import type { ProviderName } from '../../src/provider-names';
import { stripeEndpoint } from '../../src/providers/stripe/client';
import { stripeProvider } from '../../src/providers/stripe/provider';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import { startTestApi } from './lifecycle-stack';
import { ordersCallEverything, startOrdersSide, type OrdersSide } from './nexus-stack';
import { connectClient, runTestWorker, uniqueTaskQueue } from './temporal';

/** The deployment's defaults: no REAUTHORIZE_AFTER, so a Stripe hold is reauthorized a day before its end. */
export const lifecycleDefaults = {
  expiryPolicy: 'void',
  lateEventWindow: '3 days',
} as const;

export interface StripeDoors {
  sandbox: Sandbox;
  temporal: Client;
  lifecycles: LifecycleClient;
  /** One API per entry of `apiProviders`, in that order. */
  apis: AxiosInstance[];
  orders: OrdersSide;
  close: () => Promise<void>;
}

/**
 * The doors order systems use (the API and Nexus) over a worker hosting Stripe's activities, against the
 * sandbox's Stripe mode (multicapture on). `nexusProviders` are the providers Nexus starts lifecycles on;
 * each of `apiProviders` is one API's. `keyRetentionMs` shortens how long the sandbox keeps an idempotency
 * key and how long the adapter declares Stripe keeps one.
 */
export async function startStripeDoors(
  name: string,
  nexusProviders: ProviderName[],
  apiProviders: ProviderName[][],
  options: { keyRetentionMs?: number } = {},
): Promise<StripeDoors> {
  const { keyRetentionMs } = options;
  const sandbox = await startSandbox({
    mode: 'stripe',
    logger: false,
    ...(keyRetentionMs !== undefined && { stripeKeyRetentionMs: keyRetentionMs }),
  });
  const stripe = stripeProvider({
    apiKey: 'sk_test_sandbox',
    ...stripeEndpoint(sandbox.url),
    timeoutMs: 2000,
    multicapture: true,
    webhookSecrets: ['whsec_sandbox'],
    ...(keyRetentionMs !== undefined && { keyRetentionMs }),
  });
  const taskQueue = uniqueTaskQueue(name);
  const temporal = await connectClient();
  const worker = await runTestWorker({
    taskQueue,
    activities: { ...createProviderActivities(stripe), ...createOutcomeActivities() },
    nexusServices: [
      paymentsServiceHandler({
        taskQueue,
        defaults: lifecycleDefaults,
        providers: nexusProviders,
        ...ordersCallEverything,
      }),
    ],
  });
  const lifecycles = new LifecycleClient(temporal.client, taskQueue);
  const started = await Promise.all(apiProviders.map((providers) => startTestApi({ lifecycles, providers })));
  const orders = await startOrdersSide(taskQueue);
  return {
    sandbox,
    temporal: temporal.client,
    lifecycles,
    apis: started.map((each) => each.http),
    orders,
    close: async () => {
      await orders.close();
      await worker.stop();
      for (const each of started) await each.app.close();
      await temporal.close();
      await sandbox.close();
    },
  };
}

/** A JSON call to the sandbox (its Stripe API or its controls) with the sandbox's Stripe key. */
export function sandboxCaller(sandbox: Sandbox) {
  return async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const response = await fetch(`${sandbox.url}${path}`, {
      ...init,
      headers: {
        authorization: 'Bearer sk_test_sandbox',
        'content-type': 'application/json',
        ...init.headers,
      },
    });
    return (await response.json()) as T;
  };
}
