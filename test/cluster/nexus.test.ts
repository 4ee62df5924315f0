import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { orderPayment } from '../../examples/orders/workflows';
import { ORDERS_NAMESPACE } from '../../src/nexus/endpoint';
import { testOrdersDataConverter } from '../helpers/temporal';
import { createAuthorization, providerCaptures, startClusterHarness, type ClusterHarness } from './harness';

// On the real cluster: the example order workflow, in the `orders` namespace `npm run cluster` creates, pays
// through the `payments` endpoint it creates, handled by the cluster's two workers.

let cluster: ClusterHarness;

beforeAll(async () => {
  cluster = await startClusterHarness();
}, 600_000);

afterAll(async () => {
  await cluster?.close();
});

it('runs the example order workflow through Nexus: two captures at the provider, the outcome CAPTURED', async () => {
  const authorizationId = await createAuthorization(cluster.provider, '100.00');
  const nativeConnection = await NativeConnection.connect({ address: cluster.stack.temporalAddress });
  const connection = await Connection.connect({ address: cluster.stack.temporalAddress });
  const taskQueue = `orders-${randomUUID()}`;
  try {
    const worker = await Worker.create({
      connection: nativeConnection,
      namespace: ORDERS_NAMESPACE,
      taskQueue,
      dataConverter: testOrdersDataConverter,
      workflowsPath: require.resolve('../../examples/orders/workflows'),
    });
    const orders = new Client({
      connection,
      namespace: ORDERS_NAMESPACE,
      dataConverter: testOrdersDataConverter,
    });
    const result = await worker.runUntil(
      orders.workflow.execute<typeof orderPayment>('orderPayment', {
        taskQueue,
        workflowId: `order-${authorizationId}`,
        args: [{ orderId: `order-${authorizationId}`, authorizationId, firstShipmentAmount: '30.00' }],
        workflowExecutionTimeout: '5 minutes',
      }),
    );
    const captures = await providerCaptures(cluster.provider, authorizationId);
    expect(captures.map((capture) => capture.amount?.value).sort()).toEqual(['30.00', '70.00']);
    expect(result.captureIds.sort()).toEqual(captures.map((capture) => capture.id).sort());
    expect(result.outcome.status).toBe('CAPTURED');
  } finally {
    await connection.close();
    await nativeConnection.close();
  }
}, 300_000);
