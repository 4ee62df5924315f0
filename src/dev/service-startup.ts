import { setUpPaymentsNexus } from '../nexus/endpoint';
import { READINESS_PATH } from '../readiness';
import type { TemporalConnectionOptions } from '../temporal-env';
import { runService, waitForHttp, waitForLine, type ServiceProcess } from './child-process';

/** One progress line, its label in a column: `Payments sandbox:  http://127.0.0.1:8090 …`. */
export function announced(label: string, text: string): string {
  return `${label}:`.padEnd(19) + text;
}

export interface ServiceStartupOptions {
  /** Progress lines; default console.log. */
  progress?: (line: string) => void;
  /** Each process's output lines; default the console, prefixed with the process's name. */
  output?: (name: string, line: string) => void;
}

/**
 * The start-up steps `npm start` and `npm run cluster` share: each of the service's own processes is started
 * from its entry point, waited for until it is ready, and announced. Every process started is kept, so that
 * `stop` stops it, also when its start failed.
 */
export class ServiceStartup {
  readonly progress: (line: string) => void;
  private readonly started: ServiceProcess[] = [];
  /** The latest process of each name: a restarted worker replaces the one before it. */
  private readonly current = new Map<string, ServiceProcess>();

  constructor(private readonly options: ServiceStartupOptions = {}) {
    this.progress = options.progress ?? ((line: string) => console.log(line));
  }

  private run(name: string, entry: string, env: NodeJS.ProcessEnv): ServiceProcess {
    const output = this.options.output;
    const log = output ? (line: string) => output(name, line) : undefined;
    const service = runService(name, entry, env, { log });
    this.started.push(service);
    this.current.set(name, service);
    return service;
  }

  private async runHttp(name: string, entry: string, env: NodeJS.ProcessEnv, url: string) {
    const service = this.run(name, entry, env);
    await waitForHttp(`${url}${READINESS_PATH}`, service);
    return service;
  }

  /** The payments sandbox on `port`; resolves to its base URL once it answers. */
  async sandbox(port: number, env: NodeJS.ProcessEnv): Promise<string> {
    const url = `http://127.0.0.1:${port}`;
    await this.runHttp('sandbox', 'src/sandbox/main.ts', env, url);
    this.progress(announced('Payments sandbox', `${url} (control API under /sandbox)`));
    return url;
  }

  /** The payments sandbox answering as Stripe on `port`; resolves to its base URL once it answers. */
  async stripeSandbox(port: number, env: NodeJS.ProcessEnv): Promise<string> {
    const url = `http://127.0.0.1:${port}`;
    await this.runHttp(
      'stripe-sandbox',
      'src/sandbox/main.ts',
      { ...env, SANDBOX_PORT: String(port), SANDBOX_MODE: 'stripe' },
      url,
    );
    this.progress(announced('Stripe sandbox', `${url} (control API under /sandbox)`));
    return url;
  }

  /** The characters service on `port`, announced with `note`; resolves to its GraphQL URL. */
  async characters(port: number, env: NodeJS.ProcessEnv, note: string): Promise<string> {
    await this.runHttp('characters', 'src/characters/main.ts', env, `http://127.0.0.1:${port}`);
    this.progress(announced('Characters', `http://localhost:${port}/graphql (${note})`));
    return `http://127.0.0.1:${port}/graphql`;
  }

  /** A worker; resolves once it polls its task queue. */
  async worker(name: string, env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
    const worker = this.run(name, 'src/workers/main.ts', env);
    await waitForLine(worker, 'worker polling');
    return worker;
  }

  /** An API on `port`, announced under `label`; resolves once it answers. */
  async api(name: string, label: string, port: number, env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
    const api = await this.runHttp(name, 'src/api/main.ts', env, `http://127.0.0.1:${port}`);
    this.progress(announced(label, `http://localhost:${port} (docs: /docs, key: API_KEYS)`));
    return api;
  }

  /** The `payments` Nexus endpoint, from the namespace of order workflows to the payments task queue. */
  async nexus(
    temporal: TemporalConnectionOptions,
    target: { namespace: string; taskQueue: string },
  ): Promise<void> {
    this.progress(announced('Nexus', await setUpPaymentsNexus(temporal, target)));
  }

  /** The processes running now: the latest of each name. */
  processes(): ServiceProcess[] {
    return [...this.current.values()];
  }

  /** Stops every process ever started, also those whose start failed. */
  async stop(): Promise<void> {
    await Promise.all(this.started.map((service) => service.stop()));
  }
}
