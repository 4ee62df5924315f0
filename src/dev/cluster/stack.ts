import { join, resolve } from 'node:path';
import type { Config } from '../../config';
import { writeWorkflowBundle } from '../../workers/workflow-bundle';
import { WEBHOOK_ROUTE } from '../../webhooks/listener-url';
import { subscribeListener } from '../../webhooks/subscribe-listener';
import { runCommand, runService, waitForHttp, waitForLine, type ServiceProcess } from '../child-process';
import { findFreePort } from '../ports';
import { resolveClusterBinaries } from './binaries';
import { postgresServer, prepareDatabases } from './databases';
import { serverPortsFrom, writeServerConfig, type ServerPorts } from './server-config';
import { startTemporalCluster, type TemporalCluster } from './temporal-cluster';

/** The cluster's own processes: two workers and two APIs, so that either of each can fail. */
export const REPLICAS = 2;
export const NUM_HISTORY_SHARDS = 4;
const DYNAMIC_CONFIG_FILE = resolve(__dirname, '..', '..', '..', 'deploy', 'temporal-dynamic-config.yaml');

export interface ClusterPorts {
  server: ServerPorts;
  ui: number;
  sandbox: number;
  characters: number;
  apis: number[];
  workerMetrics: number[];
}

/** `npm run cluster`'s ports: the variables `npm start` reads; the second API and worker take the next port. */
export function clusterPortsFromConfig(config: Config): ClusterPorts {
  const replicas = (first: number) => Array.from({ length: REPLICAS }, (_, i) => first + i);
  return {
    server: serverPortsFrom(config.TEMPORAL_DEV_PORT),
    ui: config.TEMPORAL_UI_PORT,
    sandbox: config.SANDBOX_PORT,
    characters: config.CHARACTERS_PORT,
    apis: replicas(config.API_PORT),
    workerMetrics: replicas(config.WORKER_METRICS_PORT),
  };
}

/** Ports the OS says are free, for tests and benchmarks that run beside other stacks. */
export async function freeClusterPorts(): Promise<ClusterPorts> {
  const free = () => findFreePort();
  const pair = async () => ({ grpc: await free(), membership: await free() });
  const many = () => Promise.all(Array.from({ length: REPLICAS }, free));
  return {
    server: {
      frontend: await pair(),
      history: await pair(),
      matching: await pair(),
      worker: await pair(),
      frontendHttp: await free(),
    },
    ui: await free(),
    sandbox: await free(),
    characters: await free(),
    apis: await many(),
    workerMetrics: await many(),
  };
}

/** What the workers and the APIs of the cluster share (docker-compose.yml sets the same variables). */
export interface ServiceWiring {
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  paymentsBaseUrl: string;
  charactersUrl?: string;
  webhookListenerUrl: string;
}

export function sharedServiceEnv(wiring: ServiceWiring): NodeJS.ProcessEnv {
  return {
    TEMPORAL_ADDRESS: wiring.temporalAddress,
    TEMPORAL_NAMESPACE: wiring.namespace,
    TEMPORAL_TASK_QUEUE: wiring.taskQueue,
    PAYMENTS_BASE_URL: wiring.paymentsBaseUrl,
    ...(wiring.charactersUrl && { CHARACTERS_URL: wiring.charactersUrl }),
    WEBHOOK_LISTENER_URL: wiring.webhookListenerUrl,
  };
}

export function workerEnv(wiring: ServiceWiring, metricsPort: number, bundlePath: string): NodeJS.ProcessEnv {
  return {
    ...sharedServiceEnv(wiring),
    WORKER_METRICS_PORT: String(metricsPort),
    WORKFLOW_BUNDLE_PATH: bundlePath,
  };
}

export function apiEnv(wiring: ServiceWiring, port: number): NodeJS.ProcessEnv {
  return { ...sharedServiceEnv(wiring), API_PORT: String(port) };
}

export interface ClusterStackOptions {
  config: Config;
  ports: ClusterPorts;
  /** Generated server config and the workflow bundle go here. */
  dataDir: string;
  /** The Temporal databases' PostgreSQL (its host, port and role; the database name is ignored). */
  databaseUrl: string;
  /** Start the Web UI server (default true). */
  ui?: boolean;
  /** A provider to use instead of starting the sandbox process. */
  paymentsBaseUrl?: string;
  /** Start the characters service (default true). */
  characters?: boolean;
  /** Where the webhook subscription delivers; default API 1's route. */
  webhookListenerUrl?: string;
  /** More variables for the workers and the APIs. */
  appEnv?: NodeJS.ProcessEnv;
  /** Each process's output lines; default the console, prefixed with the process's name. */
  output?: (name: string, line: string) => void;
  /** Progress lines; default console.log. */
  progress?: (line: string) => void;
}

export interface ClusterStack {
  temporal: TemporalCluster;
  temporalAddress: string;
  uiUrl?: string;
  paymentsBaseUrl: string;
  charactersUrl?: string;
  apiUrls: string[];
  worker(index: number): ServiceProcess;
  /** Kills a worker process at once (SIGKILL, as a crash would). */
  killWorker(index: number): Promise<void>;
  /** Stops a worker gracefully (SIGTERM). */
  stopWorker(index: number): Promise<void>;
  startWorker(index: number): Promise<void>;
  /** Every running process of the stack, for watching unexpected exits. */
  processes(): ServiceProcess[];
  stop(): Promise<void>;
}

/**
 * A Temporal cluster on PostgreSQL and the service on it: databases and schemas, the four server services as
 * separate processes, the namespace and search attributes, the Web UI server, the sandbox and characters
 * services, two workers and two APIs. Used by `npm run cluster`, the cluster tests and `npm run bench:chaos`.
 */
export async function startClusterStack(options: ClusterStackOptions): Promise<ClusterStack> {
  const { config, ports } = options;
  const progress = options.progress ?? ((line: string) => console.log(line));
  const output = (name: string) =>
    options.output ? (line: string) => options.output?.(name, line) : undefined;
  const services: ServiceProcess[] = [];
  const workers: ServiceProcess[] = [];
  let temporal: TemporalCluster | undefined;

  const stop = async () => {
    const apisAndWorkers = services.filter((s) => s.name.startsWith('api') || s.name.startsWith('worker'));
    await Promise.all([...apisAndWorkers, ...workers].map((service) => service.stop()));
    await Promise.all(services.map((service) => service.stop()));
    await temporal?.stop();
  };

  try {
    const binaries = await resolveClusterBinaries();
    const postgres = postgresServer(options.databaseUrl);
    await prepareDatabases(binaries.sql, postgres, progress);
    const configFile = writeServerConfig({
      serverModuleDir: binaries.serverModuleDir,
      postgres,
      ports: ports.server,
      numHistoryShards: NUM_HISTORY_SHARDS,
      dynamicConfigFile: DYNAMIC_CONFIG_FILE,
      file: join(options.dataDir, 'temporal-server.yaml'),
    });
    progress(`Starting Temporal: frontend, history, matching and worker services (config ${configFile})…`);
    temporal = await startTemporalCluster({
      serverBinary: binaries.server,
      configFile,
      ports: ports.server,
      namespace: config.TEMPORAL_NAMESPACE,
      log: output('temporal'),
      onSearchAttributesAdded: (names) => progress(`Search attributes added: ${names.join(', ')}`),
    });
    const temporalAddress = temporal.address;
    progress(
      `Temporal frontend: ${temporalAddress} (history ${ports.server.history.grpc}, matching ` +
        `${ports.server.matching.grpc}, worker ${ports.server.worker.grpc}; ${NUM_HISTORY_SHARDS} shards, ` +
        `namespace ${config.TEMPORAL_NAMESPACE})`,
    );

    const apiUrls = ports.apis.map((port) => `http://127.0.0.1:${port}`);
    let uiUrl: string | undefined;
    if (options.ui !== false) {
      const ui = runCommand(
        'temporal-ui',
        binaries.uiServer,
        ['--root', binaries.uiServerModuleDir, '--config', 'config', '--env', 'docker', 'start'],
        {
          TEMPORAL_ADDRESS: temporalAddress,
          TEMPORAL_UI_PORT: String(ports.ui),
          TEMPORAL_DEFAULT_NAMESPACE: config.TEMPORAL_NAMESPACE,
          // Payloads shown decoded through API 1's codec server (POST /codec/encode, /codec/decode).
          TEMPORAL_CODEC_ENDPOINT: process.env.TEMPORAL_CODEC_ENDPOINT || `${apiUrls[0]}/codec`,
        },
        { log: output('temporal-ui') },
      );
      services.push(ui);
      uiUrl = `http://localhost:${ports.ui}`;
      await waitForHttp(`http://127.0.0.1:${ports.ui}/`, ui);
      progress(`Temporal Web UI:   ${uiUrl}`);
    }

    const base = { TEMPORAL_ADDRESS: temporalAddress, TEMPORAL_NAMESPACE: config.TEMPORAL_NAMESPACE };
    let paymentsBaseUrl = options.paymentsBaseUrl;
    if (!paymentsBaseUrl) {
      paymentsBaseUrl = `http://127.0.0.1:${ports.sandbox}`;
      const sandbox = runService(
        'sandbox',
        'src/sandbox/main.ts',
        { ...base, SANDBOX_PORT: String(ports.sandbox) },
        { log: output('sandbox') },
      );
      services.push(sandbox);
      await waitForHttp(`${paymentsBaseUrl}/sandbox/deliveries`, sandbox);
      progress(`Payments sandbox:  ${paymentsBaseUrl} (control API under /sandbox)`);
    }

    let charactersUrl: string | undefined;
    if (options.characters !== false) {
      const characters = runService(
        'characters',
        'src/characters/main.ts',
        { ...base, CHARACTERS_PORT: String(ports.characters), DATABASE_URL: options.databaseUrl },
        { log: output('characters') },
      );
      services.push(characters);
      charactersUrl = `http://127.0.0.1:${ports.characters}/graphql`;
      await waitForHttp(`http://127.0.0.1:${ports.characters}/healthz`, characters);
      progress(
        `Characters:        ${charactersUrl} (on ${options.databaseUrl.replace(/:[^:@/]*@/, ':***@')})`,
      );
    }

    const listenerUrl = options.webhookListenerUrl ?? `${apiUrls[0]}${WEBHOOK_ROUTE}`;
    const wiring: ServiceWiring = {
      temporalAddress,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      paymentsBaseUrl,
      charactersUrl,
      webhookListenerUrl: listenerUrl,
    };

    const bundlePath = join(options.dataDir, 'workflow-bundle.js');
    await writeWorkflowBundle(bundlePath);
    const startWorker = async (index: number) => {
      const name = `worker-${index + 1}`;
      const env = {
        ...workerEnv(wiring, ports.workerMetrics[index] as number, bundlePath),
        ...options.appEnv,
      };
      const worker = runService(name, 'src/workers/main.ts', env, { log: output(name) });
      workers[index] = worker;
      await waitForLine(worker, 'worker polling');
    };
    for (let i = 0; i < REPLICAS; i += 1) {
      await startWorker(i);
      progress(
        `Worker ${i + 1}:          polling ${config.TEMPORAL_TASK_QUEUE} (metrics :${ports.workerMetrics[i]})`,
      );
    }
    for (const [i, port] of ports.apis.entries()) {
      const name = `api-${i + 1}`;
      const api = runService(
        name,
        'src/api/main.ts',
        { ...apiEnv(wiring, port), ...options.appEnv },
        {
          log: output(name),
        },
      );
      services.push(api);
      await waitForHttp(`http://127.0.0.1:${port}/health`, api);
      progress(`API ${i + 1}:             http://localhost:${port} (docs: /docs, key: API_KEYS)`);
    }

    await subscribeListener({
      ...config,
      TEMPORAL_ADDRESS: temporalAddress,
      PAYMENTS_BASE_URL: paymentsBaseUrl,
      WEBHOOK_LISTENER_URL: listenerUrl,
    });

    const worker = (index: number) => workers[index] as ServiceProcess;
    return {
      temporal,
      temporalAddress,
      uiUrl,
      paymentsBaseUrl,
      charactersUrl,
      apiUrls,
      worker,
      async killWorker(index) {
        const { child, exited } = worker(index);
        child.kill('SIGKILL');
        await exited;
      },
      stopWorker: (index) => worker(index).stop(),
      startWorker,
      processes: () => [...(temporal?.processes() ?? []), ...services, ...workers],
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
