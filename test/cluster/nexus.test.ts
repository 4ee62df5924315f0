import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { createAuthorization, runExampleOrder, startClusterHarness, type ClusterHarness } from './harness';

// On the real cluster: the example order workflow, in the `orders` namespace `npm run cluster` creates, pays
// through the `payments` endpoint it creates, handled by the cluster's two workers.

let cluster: ClusterHarness;

beforeAll(async () => {
  cluster = await startClusterHarness({ databasePrefix: 'temporal_cluster_nexus' });
}, 600_000);

afterAll(async () => {
  await cluster?.close();
});

it('runs the example order workflow through Nexus: two captures at the provider, the outcome CAPTURED', async () => {
  const authorizationId = await createAuthorization(cluster.provider, '100.00');
  const nativeConnection = await NativeConnection.connect({ address: cluster.stack.temporalAddress });
  const connection = await Connection.connect({ address: cluster.stack.temporalAddress });
  try {
    const { result, captures } = await runExampleOrder(cluster, authorizationId, {
      worker: nativeConnection,
      client: connection,
    });
    expect(captures.map((capture) => capture.amount?.value).sort()).toEqual(['30.00', '70.00']);
    expect(result.captureIds.sort()).toEqual(captures.map((capture) => capture.id).sort());
    expect(result.outcome.status).toBe('CAPTURED');
  } finally {
    await connection.close();
    await nativeConnection.close();
  }
}, 300_000);
