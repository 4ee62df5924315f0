import { WORKER_V8_FLAGS } from '../../workers/v8-limits';
import { writeWorkflowBundle } from '../../workers/workflow-bundle';
import { subscribeListener } from '../../webhooks/subscribe-listener';
import { loadConfig } from '../../config';
import type { ServiceProcess } from '../child-process';
import { ServiceStartup, announced, type ServiceStartupOptions } from '../service-startup';

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
    PAYPAL_BASE_URL: wiring.paymentsBaseUrl,
    ...(wiring.charactersUrl && { CHARACTERS_URL: wiring.charactersUrl }),
    WEBHOOK_LISTENER_URL: wiring.webhookListenerUrl,
    // Deliveries name certificates on the provider: its origin is an allowed certificate host, besides any set.
    WEBHOOK_CERT_HOSTS: [process.env.WEBHOOK_CERT_HOSTS, new URL(wiring.paymentsBaseUrl).origin]
      .filter(Boolean)
      .join(','),
  };
}

export function workerEnv(wiring: ServiceWiring, metricsPort: number, bundlePath: string): NodeJS.ProcessEnv {
  return {
    ...sharedServiceEnv(wiring),
    WORKER_METRICS_PORT: String(metricsPort),
    WORKFLOW_BUNDLE_PATH: bundlePath,
  };
}

export function apiEnv(wiring: ServiceWiring, port: number, metricsPort: number): NodeJS.ProcessEnv {
  return { ...sharedServiceEnv(wiring), API_PORT: String(port), API_METRICS_PORT: String(metricsPort) };
}

export interface ServiceProcessesOptions extends ServiceStartupOptions {
  wiring: ServiceWiring;
  /** One API process per port. */
  apiPorts: number[];
  /** Each API's metrics port, internal (API_METRICS_PORT). */
  apiMetricsPorts: number[];
  /** One worker process per metrics port. */
  workerMetricsPorts: number[];
  /** Where the workflow code is bundled once for every worker. */
  bundlePath: string;
  /** More variables for the workers and the APIs. */
  appEnv?: NodeJS.ProcessEnv;
  /** Variables of one process (`worker-1`, `api-2`, `tooling` for the subscription): its client certificate. */
  processEnv?: (name: string) => NodeJS.ProcessEnv;
}

/** The service's own processes on some Temporal server: workers and APIs, each of which can fail alone. */
export interface ServiceProcesses {
  apiUrls: string[];
  worker(index: number): ServiceProcess;
  /** Kills a worker process at once (SIGKILL, as a crash would). */
  killWorker(index: number): Promise<void>;
  /** Stops a worker gracefully (SIGTERM). */
  stopWorker(index: number): Promise<void>;
  startWorker(index: number): Promise<void>;
  processes(): ServiceProcess[];
  stop(): Promise<void>;
}

/** Starts the workers (on one prebuilt bundle) and the APIs side by side, then subscribes the listener to webhooks. */
export async function startServiceProcesses(options: ServiceProcessesOptions): Promise<ServiceProcesses> {
  const { wiring } = options;
  const startup = new ServiceStartup(options);
  const own = (name: string) => options.processEnv?.(name) ?? {};
  const workers: ServiceProcess[] = [];
  const stop = () => startup.stop();

  try {
    const startWorker = async (index: number) => {
      const env = {
        ...workerEnv(wiring, options.workerMetricsPorts[index] as number, options.bundlePath),
        NODE_OPTIONS: WORKER_V8_FLAGS.join(' '),
        ...options.appEnv,
        ...own(`worker-${index + 1}`),
      };
      workers[index] = await startup.worker(`worker-${index + 1}`, env);
    };
    const startApi = (port: number, index: number) =>
      startup.api(`api-${index + 1}`, `API ${index + 1}`, port, {
        ...apiEnv(wiring, port, options.apiMetricsPorts[index] as number),
        ...options.appEnv,
        ...own(`api-${index + 1}`),
      });
    const workersPoll = async () => {
      await writeWorkflowBundle(options.bundlePath);
      await Promise.all(options.workerMetricsPorts.map((_port, index) => startWorker(index)));
      for (const [i, port] of options.workerMetricsPorts.entries()) {
        startup.progress(announced(`Worker ${i + 1}`, `polling ${wiring.taskQueue} (metrics :${port})`));
      }
    };
    // Each process spends most of its start loading code: the APIs start while the workflows are bundled, and
    // the workers all at once after.
    await Promise.all([workersPoll(), ...options.apiPorts.map(startApi)]);
    const apiUrls = options.apiPorts.map((port) => `http://127.0.0.1:${port}`);
    // The subscription's client encrypts as the workers decrypt: the same environment, payload keys included.
    await subscribeListener(
      loadConfig({
        ...process.env,
        ...sharedServiceEnv(wiring),
        ...options.appEnv,
        ...own('tooling'),
        LOG_LEVEL: 'silent',
      }),
    );

    const worker = (index: number) => workers[index] as ServiceProcess;
    return {
      apiUrls,
      worker,
      async killWorker(index) {
        const { child, exited } = worker(index);
        child.kill('SIGKILL');
        await exited;
      },
      stopWorker: (index) => worker(index).stop(),
      startWorker,
      processes: () => startup.processes(),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
