import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, type ConnectionOptions } from 'node:tls';
import { Connection } from '@temporalio/client';
import { rotateClientCertificate, rotateFrontendCertificate } from '../../src/dev/cluster/certificates';
import { resolveTemporalCli } from '../../src/dev/temporal-cli';
import { lifecycleWorkflowId } from '../../src/workflows/lifecycle/definitions';
import {
  capture,
  capturedAcrossApis,
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
  const authorizationId = await capturedAcrossApis(cluster);

  // The `temporal` CLI on the profile the cluster wrote (the tooling certificate) sees the same lifecycle.
  const cli = await resolveTemporalCli();
  const describe = (env: NodeJS.ProcessEnv) =>
    spawnSync(
      cli.path,
      ['workflow', 'describe', '--workflow-id', lifecycleWorkflowId(authorizationId), '--output', 'json'],
      { encoding: 'utf8', env, timeout: 30_000 },
    );
  const { TEMPORAL_ADDRESS: _address, ...env } = process.env;
  const described = describe({
    ...env,
    TEMPORAL_CONFIG_FILE: cluster.stack.profileFile,
    TEMPORAL_PROFILE: 'cluster',
  });
  expect(described.stderr).toBe('');
  expect(JSON.parse(described.stdout)).toMatchObject({
    workflowExecutionInfo: { status: 'WORKFLOW_EXECUTION_STATUS_COMPLETED' },
  });
  const withoutCertificate = describe({ ...env, TEMPORAL_ADDRESS: cluster.stack.temporalAddress });
  expect(withoutCertificate.status).not.toBe(0);
}, 180_000);

it("rotates the workers' client certificates without losing a lifecycle", async () => {
  const certificates = cluster.stack.certificates!;
  const [api1, api2] = cluster.apis;
  const authorizationId = await createAuthorization(cluster.provider);
  await startLifecycle(api1!, authorizationId, { lateEventWindow: '0 seconds' });
  for (const [index, name] of ['worker-1', 'worker-2'].entries()) {
    const before = readFileSync(certificates.clients[name]!.certFile, 'utf8');
    await rotateClientCertificate(certificates, name);
    expect(readFileSync(certificates.clients[name]!.certFile, 'utf8')).not.toBe(before);
    await cluster.stack.stopWorker(index);
    await cluster.stack.startWorker(index);
  }
  await capture(api2!, authorizationId, `capture-${authorizationId}`);
  const state = await completedState(cluster.client, authorizationId);
  expect(state.status).toBe('CAPTURED');
  expect(await providerCaptures(cluster.provider, authorizationId)).toHaveLength(1);
}, 180_000);

it("renews the frontend's certificate while a lifecycle sleeps, without a restart; the lifecycle completes", async () => {
  const certificates = cluster.stack.certificates!;
  const [api1, api2] = cluster.apis;
  const authorizationId = await createAuthorization(cluster.provider);
  // The lifecycle sleeps until its reauthorization timer; the capture below wakes it.
  await startLifecycle(api1!, authorizationId, { lateEventWindow: '0 seconds' });
  const tooling = certificates.clients.tooling!;
  const handshake = {
    ca: readFileSync(certificates.caFile),
    servername: certificates.serverName,
    cert: readFileSync(tooling.certFile),
    key: readFileSync(tooling.keyFile),
  };
  const served = () => frontendCertificate(cluster.stack.temporalAddress, handshake);
  const before = await served();
  expect(before).toBe(fingerprintOf(certificates.frontend.certFile));

  await rotateFrontendCertificate(certificates);
  const renewed = fingerprintOf(certificates.frontend.certFile);
  expect(renewed).not.toBe(before);
  // The server reads its files again at its TLS refresh interval (5 s): new handshakes get the new one.
  const deadline = Date.now() + 60_000;
  while ((await served()) !== renewed) {
    if (Date.now() > deadline) throw new Error('the frontend still serves its old certificate after 60 s');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }

  // A worker that connects anew verifies the new certificate against the same CA; the others keep theirs.
  await cluster.stack.stopWorker(0);
  await cluster.stack.startWorker(0);
  await capture(api2!, authorizationId, `capture-${authorizationId}`);
  const state = await completedState(cluster.client, authorizationId);
  expect(state.status).toBe('CAPTURED');
  expect(await providerCaptures(cluster.provider, authorizationId)).toHaveLength(1);
  const reconnected = await Connection.connect({
    address: cluster.stack.temporalAddress,
    tls: {
      serverNameOverride: certificates.serverName,
      serverRootCACertificate: handshake.ca,
      clientCertPair: { crt: handshake.cert, key: handshake.key },
    },
  });
  await expect(reconnected.workflowService.getSystemInfo({})).resolves.toBeDefined();
  await reconnected.close();
}, 240_000);

function fingerprintOf(certFile: string): string {
  return new X509Certificate(readFileSync(certFile)).fingerprint256;
}

/** The SHA-256 fingerprint of the certificate the frontend presents to a new connection. */
function frontendCertificate(address: string, options: ConnectionOptions): Promise<string> {
  const [host, port] = address.split(':');
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port: Number(port), ALPNProtocols: ['h2'], ...options }, () => {
      const { fingerprint256 } = socket.getPeerCertificate();
      socket.destroy();
      resolve(fingerprint256);
    });
    socket.once('error', reject);
  });
}

/**
 * A TLS handshake with the frontend, then HTTP/2's preface: `accepted` when the server answers it (its
 * SETTINGS frame), else the error that ended the connection (a TLS alert for a missing certificate).
 */
function frontendHandshake(address: string, options: ConnectionOptions): Promise<string> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port), ALPNProtocols: ['h2'], ...options }, () => {
      socket.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
    });
    socket.once('data', () => {
      socket.destroy();
      resolve('accepted');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    socket.once('close', () => resolve('closed'));
  });
}

it('refuses a client without a certificate, and one on plain TCP', async () => {
  const { certificates, temporalAddress } = cluster.stack;
  const files = certificates!.clients.tooling!;
  const verified = { ca: readFileSync(certificates!.caFile), servername: certificates!.serverName };
  const withCertificate = {
    ...verified,
    cert: readFileSync(files.certFile),
    key: readFileSync(files.keyFile),
  };
  expect(await frontendHandshake(temporalAddress, withCertificate)).toBe('accepted');
  expect(await frontendHandshake(temporalAddress, verified)).toMatch(/CERTIFICATE_REQUIRED/);

  // Through the SDK: no certificate, or no TLS at all, and no connection.
  const tls = { serverNameOverride: certificates!.serverName, serverRootCACertificate: verified.ca };
  for (const options of [{ tls }, {}]) {
    await expect(
      Connection.connect({ address: temporalAddress, connectTimeout: '5 seconds', ...options }),
    ).rejects.toThrow(/Failed to connect/);
  }
  await expect(cluster.client.connection.workflowService.getSystemInfo({})).resolves.toBeDefined();
}, 60_000);
