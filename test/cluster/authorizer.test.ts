import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { clientTlsConfig } from '../../src/dev/cluster/certificates';
import { resolveTemporalCli } from '../../src/dev/temporal-cli';
import { ORDERS_NAMESPACE } from '../../src/nexus/endpoint';
import { lifecycleWorkflowId, paymentEventSignal } from '../../src/workflows/lifecycle/definitions';
import {
  capture,
  capturedAcrossApis,
  createAuthorization,
  runExampleOrder,
  startClusterHarness,
  startLifecycle,
  type ClusterHarness,
} from './harness';

// `npm run cluster -- --authorizer`: Temporal's default authorizer on the frontend. The workers and APIs hold
// tokens for the payments namespace, the order system one for `orders`, the tooling `temporal-system:admin`;
// the server's own calls go through the internal frontend. The order system's credentials act in `orders`
// and are refused in the payments namespace.

const PERMISSION_DENIED = 7;
const PAYMENTS_NAMESPACE = 'default';
const TASK_QUEUE = 'payment-authorizations';

let cluster: ClusterHarness;
let orders: Connection;
let ordersToken: string;
let certificateOnly: Connection;

beforeAll(async () => {
  cluster = await startClusterHarness({ authorizer: true, databasePrefix: 'temporal_cluster_authz' });
  const { certificates, temporalAddress } = cluster.stack;
  ordersToken = readFileSync(join(cluster.dataDir, 'auth', 'orders.jwt'), 'utf8').trim();
  orders = await Connection.connect({
    address: temporalAddress,
    tls: clientTlsConfig(certificates!, 'orders'),
    apiKey: ordersToken,
  });
  certificateOnly = await Connection.connect({
    address: temporalAddress,
    tls: clientTlsConfig(certificates!, 'orders'),
  });
}, 600_000);

afterAll(async () => {
  await orders?.close();
  await certificateOnly?.close();
  await cluster?.close();
});

it('runs a lifecycle through the APIs and the workers, each on its namespace token', async () => {
  const authorizationId = await capturedAcrossApis(cluster);

  // The `temporal` CLI on the cluster's profile with the tooling's token reads it; without the token, refused.
  const cli = await resolveTemporalCli();
  const { TEMPORAL_ADDRESS: _address, TEMPORAL_API_KEY: _key, ...env } = process.env;
  const profile = { ...env, TEMPORAL_CONFIG_FILE: cluster.stack.profileFile, TEMPORAL_PROFILE: 'cluster' };
  const describe = (extra: NodeJS.ProcessEnv) =>
    spawnSync(
      cli.path,
      ['workflow', 'describe', '--workflow-id', lifecycleWorkflowId(authorizationId), '--output', 'json'],
      { encoding: 'utf8', env: { ...profile, ...extra }, timeout: 30_000 },
    );
  const described = describe({
    TEMPORAL_API_KEY: readFileSync(join(cluster.dataDir, 'auth', 'tooling.jwt'), 'utf8').trim(),
  });
  expect(described.stderr).toBe('');
  expect(JSON.parse(described.stdout)).toMatchObject({
    workflowExecutionInfo: { status: 'WORKFLOW_EXECUTION_STATUS_COMPLETED' },
  });
  const withoutToken = describe({});
  expect(withoutToken.status).not.toBe(0);
  expect(withoutToken.stderr).toMatch(/Request unauthorized|PermissionDenied|permission/i);
}, 180_000);

it("refuses the orders namespace's token to signal, terminate or poll in the payments namespace", async () => {
  const authorizationId = await createAuthorization(cluster.provider);
  await startLifecycle(cluster.apis[0]!, authorizationId);
  const execution = { workflowId: lifecycleWorkflowId(authorizationId) };
  const namespace = PAYMENTS_NAMESPACE;

  for (const connection of [orders, certificateOnly]) {
    const service = connection.workflowService;
    await expect(
      service.signalWorkflowExecution({
        namespace,
        workflowExecution: execution,
        signalName: paymentEventSignal.name,
        identity: 'orders',
      }),
    ).rejects.toMatchObject({ code: PERMISSION_DENIED });
    await expect(
      service.terminateWorkflowExecution({ namespace, workflowExecution: execution, reason: 'orders' }),
    ).rejects.toMatchObject({ code: PERMISSION_DENIED });
    await expect(
      connection.withDeadline(Date.now() + 10_000, () =>
        service.pollWorkflowTaskQueue({ namespace, taskQueue: { name: TASK_QUEUE }, identity: 'orders' }),
      ),
    ).rejects.toMatchObject({ code: PERMISSION_DENIED });
    await expect(
      connection.withDeadline(Date.now() + 10_000, () =>
        service.pollNexusTaskQueue({ namespace, taskQueue: { name: TASK_QUEUE }, identity: 'orders' }),
      ),
    ).rejects.toMatchObject({ code: PERMISSION_DENIED });
  }

  // The lifecycle is untouched and its owner, through the API, still moves it.
  const described = await cluster.client.workflow.getHandle(execution.workflowId).describe();
  expect(described.status.name).toBe('RUNNING');
  await capture(cluster.apis[1]!, authorizationId, `capture-${authorizationId}`);
}, 180_000);

it('lets the same token start, poll, signal and terminate in the orders namespace', async () => {
  const service = orders.workflowService;
  const namespace = ORDERS_NAMESPACE;
  const taskQueue = { name: `orders-probe-${randomUUID()}` };
  const workflowId = `orders-probe-${randomUUID()}`;
  await service.startWorkflowExecution({
    namespace,
    workflowId,
    workflowType: { name: 'orderPayment' },
    taskQueue,
    requestId: randomUUID(),
    identity: 'orders',
  });
  const task = await orders.withDeadline(Date.now() + 30_000, () =>
    service.pollWorkflowTaskQueue({ namespace, taskQueue, identity: 'orders' }),
  );
  expect(task.workflowExecution?.workflowId).toBe(workflowId);
  await service.signalWorkflowExecution({
    namespace,
    workflowExecution: { workflowId },
    signalName: 'probe',
    identity: 'orders',
  });
  await service.terminateWorkflowExecution({ namespace, workflowExecution: { workflowId }, reason: 'probe' });
  const { workflowExecutionInfo } = await service.describeWorkflowExecution({
    namespace,
    execution: { workflowId },
  });
  expect(workflowExecutionInfo?.status).toBe(5); // WORKFLOW_EXECUTION_STATUS_TERMINATED
}, 120_000);

it('runs the example order workflow through Nexus on the orders token: the server dispatches the calls', async () => {
  const authorizationId = await createAuthorization(cluster.provider, '100.00');
  const nativeConnection = await NativeConnection.connect({
    address: cluster.stack.temporalAddress,
    tls: clientTlsConfig(cluster.stack.certificates!, 'orders'),
    apiKey: ordersToken,
  });
  try {
    const { result, captures } = await runExampleOrder(cluster, authorizationId, {
      worker: nativeConnection,
      client: orders,
    });
    expect(captures.map((capture) => capture.amount?.value).sort()).toEqual(['30.00', '70.00']);
    expect(result.outcome.status).toBe('CAPTURED');
  } finally {
    await nativeConnection.close();
  }
}, 300_000);
