import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Connection } from '@temporalio/client';
import { customSearchAttributes } from '../workflows/search-attributes';

export interface DevServerOptions {
  cliPath: string;
  port: number;
  namespace: string;
  /** More namespaces to create, e.g. `orders` for order workflows that call payments through Nexus. */
  moreNamespaces?: string[];
  /** Serve the Web UI on this port; none means headless. */
  uiPort?: number;
  /** The codec server the Web UI decodes payloads with, e.g. http://localhost:8080/codec. */
  uiCodecEndpoint?: string;
  /** Persist to this SQLite file; none means in memory. */
  dbFile?: string;
  /** More dynamic config values (`key=value`), e.g. a low continue-as-new threshold for a test. */
  dynamicConfig?: string[];
  log?: (line: string) => void;
}

export interface DevServer {
  address: string;
  uiUrl?: string;
  stop(): Promise<void>;
}

// Update-with-start needs multi-operation; the next four are defaults of recent servers, stated for clarity:
// among them Worker Deployments (versioning v3) and the versioning of workflow tasks (docs/deploying.md). The
// transfer queue's read pace is deploy/temporal-dynamic-config.yaml's (docs/performance.md): the dev server's
// one history shard at the default 20 reads a second held each activity and workflow task about 40 ms.
const dynamicConfig = [
  'frontend.enableExecuteMultiOperation=true',
  'frontend.enableUpdateWorkflowExecution=true',
  'frontend.enableUpdateWorkflowExecutionAsyncAccepted=true',
  'system.enableDeploymentVersions=true',
  'frontend.workerVersioningWorkflowAPIs=true',
  'history.transferProcessorMaxPollRPS=500',
];

// The CLI spells the types in CamelCase.
export const cliSearchAttributeType: Record<string, string> = {
  KEYWORD: 'Keyword',
  KEYWORD_LIST: 'KeywordList',
  TEXT: 'Text',
  INT: 'Int',
  DOUBLE: 'Double',
  BOOL: 'Bool',
  DATETIME: 'Datetime',
};

function devServerArgs(options: DevServerOptions): string[] {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port)];
  args.push('--namespace', options.namespace, '--log-level', 'warn', '--log-format', 'pretty');
  for (const namespace of options.moreNamespaces ?? []) args.push('--namespace', namespace);
  if (options.uiPort) args.push('--ui-port', String(options.uiPort));
  else args.push('--headless');
  if (options.uiPort && options.uiCodecEndpoint) args.push('--ui-codec-endpoint', options.uiCodecEndpoint);
  if (options.dbFile) args.push('--db-filename', options.dbFile);
  for (const key of customSearchAttributes) {
    const type = cliSearchAttributeType[key.type] ?? key.type;
    args.push('--search-attribute', `${key.name}=${type}`);
  }
  for (const value of [...dynamicConfig, ...(options.dynamicConfig ?? [])]) {
    args.push('--dynamic-config-value', value);
  }
  return args;
}

async function waitUntilServing(address: string, namespace: string, exited: () => string | undefined) {
  const deadline = Date.now() + 90_000;
  let lastError: unknown;
  while (Date.now() < deadline) {
    const exit = exited();
    if (exit) throw new Error(`Temporal dev server exited before it was ready: ${exit}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(`Temporal dev server at ${address} was not ready within 90 s: ${String(lastError)}`);
}

/** Runs `temporal server start-dev` with the service's search attributes and waits until it serves. */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  if (options.dbFile) mkdirSync(dirname(options.dbFile), { recursive: true });
  const child = spawn(options.cliPath, devServerArgs(options), { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let exit: string | undefined;
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
    options.log?.(chunk.toString().trimEnd());
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exitedPromise = new Promise<void>((resolve) => {
    child.on('exit', (code, signal) => {
      exit = `code ${code ?? signal}\n${output}`;
      resolve();
    });
  });
  child.on('error', (error) => (exit = error.message));

  // However the parent ends (a failed setup, an uncaught error), it does not leave the server behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void exitedPromise.then(() => process.off('exit', killOnExit));

  const address = `127.0.0.1:${options.port}`;
  const stop = async () => {
    if (exit) return;
    child.kill('SIGTERM');
    const timeout = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exitedPromise;
    clearTimeout(timeout);
  };
  try {
    await waitUntilServing(address, options.namespace, () => exit);
  } catch (error) {
    await stop();
    throw error;
  }
  return { address, uiUrl: options.uiPort ? `http://localhost:${options.uiPort}` : undefined, stop };
}
