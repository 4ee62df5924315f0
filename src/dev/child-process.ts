import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

export interface RunOptions {
  /** Where each output line goes; by default the console, prefixed with the process's name. */
  log?: (line: string) => void;
  /** How long SIGTERM may take before SIGKILL. */
  stopTimeoutMs?: number;
}

/** Runs a program as a child process, its output prefixed with its name. */
export function runCommand(
  name: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  options: RunOptions = {},
): ServiceProcess {
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = options.log ?? ((line: string) => console.log(`[${name}] ${line}`));
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', log);
  }
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => resolve(code));
    child.on('error', () => resolve(null));
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timeout = setTimeout(() => child.kill('SIGKILL'), options.stopTimeoutMs ?? 15_000);
    await exited;
    clearTimeout(timeout);
  };
  return { name, child, exited, stop };
}

/** Runs a TypeScript entry point of this repo as a child process, its output prefixed with its name. */
export function runService(
  name: string,
  entry: string,
  env: NodeJS.ProcessEnv,
  options: RunOptions = {},
): ServiceProcess {
  return runCommand(name, process.execPath, ['--import', 'tsx', entry], env, options);
}

/** Resolves once `url` answers any HTTP status; rejects when `process` exits first or after `timeoutMs`. */
export async function waitForHttp(url: string, service: ServiceProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void service.exited.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`${service.name} exited before it served ${url}`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(`${service.name} did not serve ${url} within ${timeoutMs / 1000} s`);
}

/** Resolves once the service prints a line containing `marker`. */
export function waitForLine(service: ServiceProcess, marker: string, timeoutMs = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${service.name} was not ready within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      if (chunk.toString().includes(marker)) {
        clearTimeout(timer);
        resolve();
      }
    };
    service.child.stdout?.on('data', onData);
    service.child.stderr?.on('data', onData);
    void service.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${service.name} exited with code ${code} before it was ready`));
    });
  });
}

/**
 * Stops a whole local stack once: on Ctrl-C or SIGTERM (exit 0), on a failed start, or when one of its processes
 * exits on its own (exit 1).
 */
export function superviseStack(what: string, stop: () => Promise<void>) {
  let stopping = false;
  const stopAll = async (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    console.log(`Stopping the ${what}…`);
    await stop();
    process.exit(exitCode);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));
  return {
    stopAll,
    watch(services: readonly ServiceProcess[]): void {
      for (const service of services) {
        void service.exited.then((code) => {
          if (stopping) return;
          console.error(`${service.name} exited unexpectedly (code ${code}); stopping the ${what}.`);
          void stopAll(1);
        });
      }
    },
  };
}
