import { readFileSync } from 'node:fs';
import { Connection } from '@temporalio/client';
import {
  capture,
  completedState,
  createAuthorization,
  providerCaptures,
  startClusterHarness,
  startLifecycle,
  type ClusterHarness,
} from './harness';

// `npm run cluster -- --tls`: the frontend requires a client certificate signed by the cluster's CA. The
// workers, the APIs and the tooling connect with their own, through Temporal's environment configuration;
// a client without one is refused.

let cluster: ClusterHarness;

beforeAll(async () => {
  cluster = await startClusterHarness({ tls: true, databasePrefix: 'temporal_cluster_tls' });
}, 600_000);

afterAll(async () => {
  await cluster?.close();
});

it('runs a lifecycle through the APIs and the workers, each on its client certificate', async () => {
  const [api1, api2] = cluster.apis;
  const authorizationId = await createAuthorization(cluster.provider);
  await startLifecycle(api1!, authorizationId, { lateEventWindow: '0 seconds' });
  await capture(api2!, authorizationId, `capture-${authorizationId}`);
  const state = await completedState(cluster.client, authorizationId);
  expect(state.status).toBe('CAPTURED');
  expect(await providerCaptures(cluster.provider, authorizationId)).toHaveLength(1);
}, 180_000);

it('refuses a client without a certificate, and one on plain TCP', async () => {
  const { certificates, temporalAddress } = cluster.stack;
  expect(certificates).toBeDefined();
  const withoutCertificate = Connection.lazy({
    address: temporalAddress,
    tls: {
      serverNameOverride: certificates!.serverName,
      serverRootCACertificate: readFileSync(certificates!.caFile),
    },
    connectTimeout: '5 seconds',
  });
  const plain = Connection.lazy({ address: temporalAddress, connectTimeout: '5 seconds' });
  try {
    for (const connection of [withoutCertificate, plain]) {
      await expect(
        connection.withDeadline(Date.now() + 10_000, () => connection.workflowService.getSystemInfo({})),
      ).rejects.toThrow();
    }
  } finally {
    await withoutCertificate.close();
    await plain.close();
  }
  // The same probe with the tooling certificate answers (the harness's client holds it).
  await expect(cluster.client.connection.workflowService.getSystemInfo({})).resolves.toBeDefined();
}, 60_000);
