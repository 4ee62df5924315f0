import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import axios, { type AxiosInstance } from 'axios';
import { Client, Connection } from '@temporalio/client';
import { Worker, type NativeConnection } from '@temporalio/worker';
import type { orderPayment } from '../../examples/orders/workflows';
import { loadConfig } from '../../src/config';
import { clientTlsConfig } from '../../src/dev/cluster/certificates';
import { dropDatabases, postgresServer, temporalDatabases } from '../../src/dev/cluster/databases';
import {
  DEFAULT_CLUSTER_DATABASE_URL,
  freeClusterPorts,
  startClusterStack,
  type ClusterStack,
} from '../../src/dev/cluster/stack';
import { ORDERS_NAMESPACE } from '../../src/nexus/endpoint';
import type { Authorization, PaymentCapture } from '../../src/providers/resources';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/server';
import { lifecycleWorkflowId, type LifecycleState } from '../../src/workflows/lifecycle/definitions';
import {
  TEST_CODEC_KEYS_ENV,
  TEST_ENDPOINT_KEYS_ENV,
  testDataConverter,
  testOrdersDataConverter,
} from '../helpers/temporal';

export const CLUSTER_API_KEY = 'cluster-test-key';
const DATA_ROOT = join(__dirname, '..', '..', '.data', 'cluster-test');

/** The cluster (real processes on loopback), the provider in this process, and clients for both. */
export interface ClusterHarness {
  stack: ClusterStack;
  sandbox: Sandbox;
  client: Client;
  /** API 1 and API 2, each with the API key; every status comes back as a response. */
  apis: AxiosInstance[];
  provider: AxiosInstance;
  /** The cluster's own files (server config, certificates, tokens, workflow bundle, process output). */
  dataDir: string;
  processLog: string;
  close(): Promise<void>;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A bound for Promise.race that does not keep the process alive once the race is won. */
const bound = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/**
 * Starts the whole cluster on free ports, on empty databases of its own (`temporal_cluster_test`): whatever an
 * earlier run left in them is dropped first.
 */
export async function startClusterHarness(
  options: {
    sandbox?: SandboxOptions;
    appEnv?: NodeJS.ProcessEnv;
    databasePrefix?: string;
    /** The frontend on mTLS (`npm run cluster -- --tls`); this harness's client uses the `tooling` certificate. */
    tls?: boolean;
    /** Temporal's authorizer (`npm run cluster -- --authorizer`, implies `tls`); the client holds the tooling token. */
    authorizer?: boolean;
    /** The Web UI server (default none). */
    ui?: boolean;
    /** Operators log in to the Web UI (`npm run cluster -- --oidc`). */
    oidc?: { codecOperators?: readonly string[] };
    /** Toxiproxy on the links between hosts (`npm run cluster -- --links`): `cluster.stack.links`. */
    links?: boolean;
    /** The server's dynamic config file instead of deploy/temporal-dynamic-config.yaml. */
    dynamicConfigFile?: string;
  } = {},
): Promise<ClusterHarness> {
  const databaseUrl = process.env.CLUSTER_DATABASE_URL ?? DEFAULT_CLUSTER_DATABASE_URL;
  const databasePrefix = options.databasePrefix ?? 'temporal_cluster_test';
  const started = Date.now();
  // A run that ended early (a failure, a kill) leaves its workflows open: on the same databases they would wake
  // on this run's workers, whatever Worker Deployment those belong to, and a ramp it left would take a share of
  // this run's new workflows to workers that no longer poll.
  await dropDatabases(postgresServer(databaseUrl), temporalDatabases(databasePrefix));
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  // A directory per databases' prefix: two files run at once, each on its own cluster.
  const dataDir = join(DATA_ROOT, databasePrefix);
  mkdirSync(dataDir, { recursive: true });
  const processLog = join(dataDir, 'processes.log');
  writeFileSync(processLog, '');
  // Two files run at once, one per jest worker: each takes its ports from a block of its own.
  const ports = await freeClusterPorts(Number(process.env.JEST_WORKER_ID ?? 1));
  const sandbox = await startSandbox({ port: ports.sandbox, logger: false, ...options.sandbox });
  const config = loadConfig({ API_KEYS: CLUSTER_API_KEY, TEMPORAL_TASK_QUEUE: 'payment-authorizations' });
  // The processes and this test's client encrypt payloads with the same test key.
  const codecEnv = { PAYLOAD_CODEC_KEYS: TEST_CODEC_KEYS_ENV, NEXUS_ENDPOINT_KEYS: TEST_ENDPOINT_KEYS_ENV };
  const stack = await startClusterStack({
    config,
    ports,
    dataDir,
    databaseUrl,
    databasePrefix,
    ui: options.ui ?? false,
    oidc: options.oidc,
    characters: false,
    tls: options.tls,
    authorizer: options.authorizer,
    links: options.links,
    dynamicConfigFile: options.dynamicConfigFile,
    // Two clusters run side by side with the unit suites' PostgreSQL tests on one PostgreSQL (100 connections):
    // with Temporal's example pools a cluster held 35 to 39.
    postgresConnectionsPerService: 8,
    paymentsBaseUrl: sandbox.url,
    // The suite sends every request from 127.0.0.1: far more than the default rate limit per source.
    appEnv: {
      API_KEYS: CLUSTER_API_KEY,
      API_RATE_LIMIT_MAX: '1000000',
      API_CALLER_RATE_LIMIT_MAX: '1000000',
      WEBHOOK_RATE_LIMIT_MAX: '1000000',
      WEBHOOK_REFUSED_RATE_LIMIT_MAX: '1000000',
      WEBHOOK_REMOTE_VERIFY_RATE_LIMIT_MAX: '1000000',
      ...codecEnv,
      ...options.appEnv,
    },
    output: (name, line) => appendFileSync(processLog, `[${name}] ${line}\n`),
    // Each line with the time since the start began: where a cluster's start-up spends its time.
    progress: (line) => console.log(`[cluster ${elapsed()}] ${line}`),
  }).catch(async (error: unknown) => {
    await sandbox.close();
    // The output of the process that failed goes with the error.
    const message = error instanceof Error ? error.message : String(error);
    const failed = /^(\S+) exited/.exec(message)?.[1];
    const lines = failed
      ? readFileSync(processLog, 'utf8')
          .split('\n')
          .filter((line) => line.startsWith(`[${failed}]`))
          .slice(-40)
      : [];
    throw new Error(`${message} (process output: ${processLog})\n${lines.join('\n')}`);
  });
  console.log(
    `[cluster] up in ${Math.round((Date.now() - started) / 1000)} s; process output in ${processLog}`,
  );
  const connection = await Connection.connect({
    address: stack.temporalAddress,
    tls: stack.certificates && clientTlsConfig(stack.certificates, 'tooling'),
    apiKey: stack.tokenIssuer?.token('tooling', ['temporal-system:admin']),
  });
  const client = new Client({ connection, dataConverter: testDataConverter });
  const apis = stack.apiUrls.map((baseURL) =>
    axios.create({
      baseURL,
      headers: { authorization: `Bearer ${CLUSTER_API_KEY}` },
      validateStatus: () => true,
      timeout: 30_000,
    }),
  );
  const provider = axios.create({ baseURL: sandbox.url, validateStatus: () => true });
  return {
    stack,
    sandbox,
    client,
    apis,
    provider,
    dataDir,
    processLog,
    async close() {
      await connection.close();
      await stack.stop();
      await sandbox.close();
    },
  };
}

export async function createAuthorization(provider: AxiosInstance, value = '25.00'): Promise<string> {
  const response = await provider.post<Authorization>('/sandbox/authorizations', {
    amount: { currency_code: 'USD', value },
  });
  if (response.status !== 201) throw new Error(`sandbox refused: ${JSON.stringify(response.data)}`);
  return response.data.id;
}

/**
 * Sends one API request until it gets an answer that is not "try again" (a 503, a 5xx, a time-out or a
 * refused connection), as an order system does with the same Idempotency-Key. Gives up after `timeoutMs`.
 */
export async function untilAnswered<T>(
  send: () => Promise<{ status: number; data: T }>,
  timeoutMs = 120_000,
): Promise<{ status: number; data: T; attempts: number }> {
  const deadline = Date.now() + timeoutMs;
  let attempts = 0;
  let last = 'no attempt';
  while (Date.now() < deadline) {
    attempts += 1;
    try {
      const response = await send();
      if (response.status < 500) return { ...response, attempts };
      last = `${response.status} ${JSON.stringify(response.data)}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await sleep(500);
  }
  throw new Error(`no answer within ${timeoutMs / 1000} s after ${attempts} attempts; last: ${last}`);
}

/** Starts a lifecycle through `api`, retried until answered; answers the authorization id. */
export async function startLifecycle(
  api: AxiosInstance,
  authorizationId: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const response = await untilAnswered(() => api.post('/v1/lifecycles', { authorizationId, ...extra }));
  if (response.status !== 201 && response.status !== 200) {
    throw new Error(
      `lifecycle ${authorizationId} not started: ${response.status} ${JSON.stringify(response.data)}`,
    );
  }
}

/** Captures the rest of the authorization through `api` with one idempotency key, retried until answered. */
export async function capture(
  api: AxiosInstance,
  authorizationId: string,
  key: string,
): Promise<PaymentCapture> {
  const response = await untilAnswered(() =>
    api.post<PaymentCapture>(
      `/v1/lifecycles/${authorizationId}/capture`,
      {},
      { headers: { 'idempotency-key': key } },
    ),
  );
  if (response.status !== 200) {
    throw new Error(
      `capture of ${authorizationId} refused: ${response.status} ${JSON.stringify(response.data)}`,
    );
  }
  return response.data;
}

/** The captures the provider holds for an authorization (the sandbox's ledger). */
export async function providerCaptures(
  provider: AxiosInstance,
  authorizationId: string,
): Promise<PaymentCapture[]> {
  const response = await provider.get<{ captures: PaymentCapture[] }>(
    `/sandbox/authorizations/${authorizationId}/captures`,
  );
  return response.data.captures;
}

/**
 * A lifecycle started through API 1 and captured in full through API 2, closing at once: answers its
 * authorization id once it completed CAPTURED with one capture at the provider.
 */
export async function capturedAcrossApis(cluster: ClusterHarness): Promise<string> {
  const [api1, api2] = cluster.apis;
  const authorizationId = await createAuthorization(cluster.provider);
  await startLifecycle(api1!, authorizationId, { lateEventWindow: '0 seconds' });
  await capture(api2!, authorizationId, `capture-${authorizationId}`);
  const state = await completedState(cluster.client, authorizationId);
  expect(state.status).toBe('CAPTURED');
  expect(await providerCaptures(cluster.provider, authorizationId)).toHaveLength(1);
  return authorizationId;
}

/**
 * The example order workflow (examples/orders) run to its end in the `orders` namespace, on a worker of its
 * own over these connections: its result and the provider's captures of the authorization.
 */
export async function runExampleOrder(
  cluster: ClusterHarness,
  authorizationId: string,
  connections: { worker: NativeConnection; client: Connection },
) {
  const taskQueue = `orders-${randomUUID()}`;
  const worker = await Worker.create({
    connection: connections.worker,
    namespace: ORDERS_NAMESPACE,
    taskQueue,
    dataConverter: testOrdersDataConverter,
    workflowsPath: require.resolve('../../examples/orders/workflows'),
  });
  const orders = new Client({
    connection: connections.client,
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
  return { result, captures: await providerCaptures(cluster.provider, authorizationId) };
}

/** Waits for the lifecycle's run to complete and answers its final state. */
export async function completedState(client: Client, authorizationId: string, timeoutMs = 180_000) {
  const result = client.workflow
    .getHandle(lifecycleWorkflowId(authorizationId))
    .result() as Promise<LifecycleState>;
  const timeout = bound(timeoutMs).then(() => {
    throw new Error(`lifecycle ${authorizationId} did not complete within ${timeoutMs / 1000} s`);
  });
  return Promise.race([result, timeout]);
}

/** Resolves once the provider has delivered or given up every webhook event so far (bounded). */
export async function deliveriesSettled(sandbox: Sandbox, timeoutMs = 120_000): Promise<void> {
  await Promise.race([sandbox.deliveriesSettled(), bound(timeoutMs)]);
}
