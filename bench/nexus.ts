import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { eventTimeMs } from './event-time';
import type { temporal } from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { orderPayment } from '../examples/orders/workflows';
import { ORDERS_NAMESPACE, ensurePaymentsEndpoint } from '../src/nexus/endpoint';
import { writeWorkflowBundle } from '../src/workers/workflow-bundle';
import { runBounded } from './stats';

const ENDPOINT = 'bench-payments';
const TASK_QUEUE = 'bench-orders';

/** How long each capture operation took, as the caller's history tells: scheduled → completed. */
function captureMs(history: temporal.api.history.v1.IHistory): number[] {
  const scheduled = new Map<string, number>();
  const samples: number[] = [];
  for (const event of history.events ?? []) {
    if (event.nexusOperationScheduledEventAttributes?.operation === 'capture') {
      scheduled.set(String(event.eventId), eventTimeMs(event));
    }
    const completed = event.nexusOperationCompletedEventAttributes;
    const start = completed && scheduled.get(String(completed.scheduledEventId));
    if (start !== undefined && start !== null) samples.push(eventTimeMs(event) - start);
  }
  return samples;
}

/**
 * The Nexus row: the example order workflow (examples/orders) in the `orders` namespace, calling the worker's
 * payments service through an endpoint; its two captures are timed from its own history.
 */
export async function startNexusCaller(options: {
  address: string;
  connection: Connection;
  dataConverter: DataConverter;
  targetTaskQueue: string;
}) {
  await ensurePaymentsEndpoint(options.connection, {
    name: ENDPOINT,
    targetNamespace: 'default',
    targetTaskQueue: options.targetTaskQueue,
  });
  const bundle = join(mkdtempSync(join(tmpdir(), 'bench-')), 'orders-bundle.js');
  await writeWorkflowBundle(bundle, require.resolve('../examples/orders/workflows'));
  const worker = await Worker.create({
    connection: await NativeConnection.connect({ address: options.address }),
    namespace: ORDERS_NAMESPACE,
    taskQueue: TASK_QUEUE,
    workflowBundle: { codePath: bundle },
    dataConverter: options.dataConverter,
  });
  const running = worker.run();
  const orders = new Client({
    connection: options.connection,
    namespace: ORDERS_NAMESPACE,
    dataConverter: options.dataConverter,
  });
  return {
    /** Runs an order per authorization (two captures each); answers every capture's milliseconds. */
    async captures(authorizationIds: string[], concurrency: number): Promise<number[]> {
      const samples: number[] = [];
      await runBounded(authorizationIds.length, concurrency, async (i) => {
        const authorizationId = authorizationIds[i] as string;
        const handle = await orders.workflow.start<typeof orderPayment>('orderPayment', {
          taskQueue: TASK_QUEUE,
          workflowId: `bench-order-${authorizationId}`,
          args: [
            {
              orderId: `bench-${authorizationId}`,
              authorizationId,
              firstShipmentAmount: '4.00',
              endpoint: ENDPOINT,
            },
          ],
        });
        await handle.result();
        samples.push(...captureMs(await handle.fetchHistory()));
      });
      return samples;
    },
    async stop() {
      worker.shutdown();
      await running;
    },
  };
}
