import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { Connection, type TLSConfig } from '@temporalio/client';
import { ensureNamespace } from '../../nexus/endpoint';
import { customSearchAttributes } from '../../workflows/search-attributes';
import { runCommand, type RunOptions, type ServiceProcess } from '../child-process';
import { INTERNAL_FRONTEND, temporalServices, type ServerPorts, type TemporalService } from './server-config';

/** Temporal's IndexedValueType numbers for the SDK's search attribute types. */
const indexedValueType: Record<string, number> = {
  TEXT: 1,
  KEYWORD: 2,
  INT: 3,
  DOUBLE: 4,
  BOOL: 5,
  DATETIME: 6,
  KEYWORD_LIST: 7,
};

export interface TemporalClusterOptions {
  serverBinary: string;
  configFile: string;
  /** A config of its own for some services (the history service's PostgreSQL through a link). */
  serviceConfigFiles?: Partial<Record<TemporalService, string>>;
  ports: ServerPorts;
  namespace: string;
  /** The client side of the frontend's mTLS, for the namespace set-up and the readiness probes. */
  tls?: TLSConfig;
  /** With the authorizer: the tooling's token (`temporal-system:admin`), for the same. */
  apiKey?: string;
  /** The services to run (default the four; servicesOf adds the internal frontend for the authorizer). */
  services?: TemporalService[];
  /** Output of the service processes; by default the console, prefixed. */
  log?: RunOptions['log'];
  onSearchAttributesAdded?: (names: string[]) => void;
}

/** The four service processes of one Temporal server, each of which can be stopped and started alone. */
export interface TemporalCluster {
  address: string;
  processes(): ServiceProcess[];
  process(service: TemporalService): ServiceProcess;
  stopService(service: TemporalService): Promise<void>;
  /** Starts a stopped service again; resolves once its process runs (use waitUntilServing for readiness). */
  startService(service: TemporalService): void;
  /** Resolves once the frontend, history and matching answer for the namespace. */
  waitUntilServing(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function grpcCode(error: unknown): number | undefined {
  return (error as { code?: number }).code;
}

/** Creates the namespace when missing, then the search attributes the workflows use. */
async function registerNamespace(connection: Connection, namespace: string): Promise<string[]> {
  await ensureNamespace(connection, namespace);
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = customSearchAttributes.filter((key) => !(key.name in (customAttributes ?? {})));
  if (missing.length > 0) {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((key) => [key.name, indexedValueType[key.type] ?? 2])),
    });
  }
  return missing.map((key) => key.name);
}

/**
 * Waits until each service answers: the namespace from the frontend (and the database), a workflow lookup
 * from history (NOT_FOUND proves a shard owner answered) and a task queue from matching.
 */
async function waitForServices(
  { address, tls, apiKey }: { address: string; tls?: TLSConfig; apiKey?: string },
  namespace: string,
  timeoutMs: number,
  setup?: (connection: Connection) => Promise<void>,
) {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const connection = await Connection.connect({ address, tls, apiKey, connectTimeout: 2_000 });
      try {
        await setup?.(connection);
        await connection.withDeadline(Date.now() + 5_000, async () => {
          await connection.workflowService.describeNamespace({ namespace });
          await connection.workflowService
            .describeWorkflowExecution({ namespace, execution: { workflowId: `probe-${randomUUID()}` } })
            .catch((error: unknown) => {
              if (grpcCode(error) !== 5) throw error;
            });
          await connection.workflowService.describeTaskQueue({ namespace, taskQueue: { name: 'probe' } });
        });
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error;
      await sleep(500);
    }
  }
  throw new Error(
    `Temporal at ${address} was not serving within ${timeoutMs / 1000} s: ${String(lastError)}`,
  );
}

/** Resolves once something listens on the port; rejects when the process exits first. */
async function waitForPort(port: number, service: ServiceProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void service.exited.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`${service.name} exited before it listened on ${port}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    }).catch(() => false);
    if (open) return;
    await sleep(250);
  }
  throw new Error(`${service.name} did not listen on ${port} within ${timeoutMs / 1000} s`);
}

/** Starts frontend, history, matching and worker as separate processes on one generated config. */
export async function startTemporalCluster(options: TemporalClusterOptions): Promise<TemporalCluster> {
  const address = `127.0.0.1:${options.ports.frontend.grpc}`;
  const running = new Map<TemporalService, ServiceProcess>();
  const startService = (service: TemporalService) => {
    const existing = running.get(service);
    if (existing && existing.child.exitCode === null && existing.child.signalCode === null) return;
    const configFile = options.serviceConfigFiles?.[service] ?? options.configFile;
    const args = ['--config-file', configFile, '--allow-no-auth', 'start', '--service', service];
    const child = runCommand(
      `temporal-${service}`,
      options.serverBinary,
      args,
      {},
      {
        log: options.log,
        stopTimeoutMs: 20_000,
      },
    );
    running.set(service, child);
  };
  const stopService = async (service: TemporalService) => {
    await running.get(service)?.stop();
  };
  const stop = async () => {
    // The frontend first, so nothing new comes in; history last, as it owns the shards.
    for (const service of ['frontend', INTERNAL_FRONTEND, 'worker', 'matching', 'history'] as const) {
      await stopService(service);
    }
  };
  // However the parent ends, the server processes do not outlive it.
  const killOnExit = () => running.forEach((service) => service.child.kill('SIGKILL'));
  process.once('exit', killOnExit);

  const cluster: TemporalCluster = {
    address,
    processes: () => [...running.values()],
    process: (service) => running.get(service) as ServiceProcess,
    stopService,
    startService,
    waitUntilServing: (timeoutMs = 60_000) =>
      waitForServices({ address, tls: options.tls, apiKey: options.apiKey }, options.namespace, timeoutMs),
    stop,
  };
  try {
    // The frontend first: on new databases the first process writes the cluster metadata, which processes
    // starting together would race for. The others then start together.
    startService('frontend');
    await waitForPort(options.ports.frontend.grpc, running.get('frontend') as ServiceProcess);
    for (const service of options.services ?? temporalServices) startService(service);
    await waitForServices(
      { address, tls: options.tls, apiKey: options.apiKey },
      options.namespace,
      120_000,
      async (connection) => {
        const added = await registerNamespace(connection, options.namespace);
        if (added.length > 0) options.onSearchAttributesAdded?.(added);
      },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return cluster;
}
