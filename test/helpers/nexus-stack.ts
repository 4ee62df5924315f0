import { randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { createProviderActivities } from '../../src/activities/payments';
import { paymentsOperations } from '../../src/nexus/callers';
import { ORDERS_NAMESPACE, ensurePaymentsEndpoint } from '../../src/nexus/endpoint';
import { paymentsServiceHandler, type PaymentsHandlerOptions } from '../../src/nexus/handlers';
import { createOutcomeActivities } from '../../src/activities/payment-outcome';
import type { PaymentsProvider } from '../../src/providers/port';
import { runTestWorker, temporalAddress, testDataConverter, uniqueTaskQueue } from './temporal';

/** The lifecycle defaults the API tests use too. */
const defaults = { reauthorizeAfter: '3 days', expiryPolicy: 'void', lateEventWindow: '3 days' } as const;

/** The development default: the `orders` namespace may call every operation. */
export const ordersCallEverything: Pick<PaymentsHandlerOptions, 'callers' | 'outcomeWaitsPerCaller'> = {
  callers: new Map([[ORDERS_NAMESPACE, new Set(paymentsOperations)]]),
  outcomeWaitsPerCaller: 1_000,
};

/** Our worker's part in Nexus, as src/workers/main.ts registers it: the handlers and the outcome activity. */
export function handlerWorkerOptions(taskQueue: string, payments: PaymentsProvider) {
  return handlerWorker(ordersCallEverything)(taskQueue, payments);
}

/** handlerWorkerOptions with other callers, a bound, or a data converter. */
export function handlerWorker(
  callers: Pick<PaymentsHandlerOptions, 'callers' | 'outcomeWaitsPerCaller'>,
  more: { dataConverter?: DataConverter } = {},
) {
  return (taskQueue: string, payments: PaymentsProvider) => ({
    ...more,
    taskQueue,
    activities: { ...createProviderActivities(payments), ...createOutcomeActivities() },
    nexusServices: [paymentsServiceHandler({ taskQueue, defaults, ...callers })],
  });
}

/** The caller's side: a worker and a client in the `orders` namespace (or another), and an endpoint of its own. */
export interface OrdersSide {
  endpoint: string;
  client: Client;
  taskQueue: string;
  /** Runs a workflow of test/fixtures/workflows in the orders namespace; answers its result or its failure. */
  run<T>(workflowType: string, args: unknown[]): Promise<{ result?: T; failure?: WorkflowFailedError }>;
  close(): Promise<void>;
}

export async function startOrdersSide(
  paymentsTaskQueue: string,
  side: { namespace?: string; dataConverter?: DataConverter } = {},
): Promise<OrdersSide> {
  const namespace = side.namespace ?? ORDERS_NAMESPACE;
  const dataConverter = side.dataConverter ?? testDataConverter;
  const connection = await Connection.connect({ address: temporalAddress() });
  const endpoint = `payments-${randomUUID()}`;
  await ensurePaymentsEndpoint(connection, {
    name: endpoint,
    targetNamespace: 'default',
    targetTaskQueue: paymentsTaskQueue,
  });
  const client = new Client({ connection, namespace, dataConverter });
  const taskQueue = uniqueTaskQueue('orders');
  const worker = await runTestWorker({ namespace, taskQueue, dataConverter });
  return {
    endpoint,
    client,
    taskQueue,
    async run<T>(workflowType: string, args: unknown[]) {
      try {
        const result = await client.workflow.execute<(...a: unknown[]) => Promise<T>>(workflowType, {
          taskQueue,
          workflowId: `${workflowType}-${randomUUID()}`,
          args,
          workflowExecutionTimeout: '2 minutes',
        });
        return { result };
      } catch (error) {
        if (error instanceof WorkflowFailedError) return { failure: error };
        throw error;
      }
    },
    async close() {
      await worker.stop();
      await connection.close();
    },
  };
}
