import { randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { createPaymentsActivities } from '../../src/activities/payments';
import { ORDERS_NAMESPACE, ensurePaymentsEndpoint } from '../../src/nexus/endpoint';
import { paymentsServiceHandler } from '../../src/nexus/handlers';
import { createOutcomeActivities } from '../../src/activities/payment-outcome';
import type { PaymentsProvider } from '../../src/providers/port';
import { runTestWorker, temporalAddress, testDataConverter, uniqueTaskQueue } from './temporal';

/** The lifecycle defaults the API tests use too. */
const defaults = { reauthorizeAfter: '3 days', expiryPolicy: 'void', lateEventWindow: '3 days' } as const;

/** Our worker's part in Nexus, as src/workers/main.ts registers it: the handlers and the outcome activity. */
export function handlerWorkerOptions(taskQueue: string, payments: PaymentsProvider) {
  return {
    taskQueue,
    activities: { ...createPaymentsActivities(payments), ...createOutcomeActivities() },
    nexusServices: [paymentsServiceHandler({ taskQueue, defaults })],
  };
}

/** The caller's side: a worker and a client in the `orders` namespace, and an endpoint of its own. */
export interface OrdersSide {
  endpoint: string;
  client: Client;
  taskQueue: string;
  /** Runs a workflow of test/fixtures/workflows in the orders namespace; answers its result or its failure. */
  run<T>(workflowType: string, args: unknown[]): Promise<{ result?: T; failure?: WorkflowFailedError }>;
  close(): Promise<void>;
}

export async function startOrdersSide(paymentsTaskQueue: string): Promise<OrdersSide> {
  const connection = await Connection.connect({ address: temporalAddress() });
  const endpoint = `payments-${randomUUID()}`;
  await ensurePaymentsEndpoint(connection, {
    name: endpoint,
    targetNamespace: 'default',
    targetTaskQueue: paymentsTaskQueue,
  });
  const client = new Client({ connection, namespace: ORDERS_NAMESPACE, dataConverter: testDataConverter });
  const taskQueue = uniqueTaskQueue('orders');
  const worker = await runTestWorker({ namespace: ORDERS_NAMESPACE, taskQueue });
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
