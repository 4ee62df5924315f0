import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { runCommand, waitForHttp, type ServiceProcess } from './child-process';
import { binaryCacheRoot, goInstall, isExecutable, type Log } from './go-build';
import { findFreePort } from './ports';

/**
 * Stripe's own mock server, which checks every request against Stripe's OpenAPI document (stateless: it
 * answers fixtures). Pinned to the release whose embedded spec is the one test/fixtures/contract derives from.
 */
export const STRIPE_MOCK_VERSION = 'v0.203.0';
const GO_PACKAGE = `github.com/stripe/stripe-mock@${STRIPE_MOCK_VERSION}`;

/** Finds stripe-mock: STRIPE_MOCK_PATH, the cached build, or a fresh Go build into the cache. */
export async function resolveStripeMock(
  env: NodeJS.ProcessEnv = process.env,
  log: Log = (line) => console.error(`[stripe-mock] ${line}`),
): Promise<string> {
  if (env.STRIPE_MOCK_PATH) {
    if (isExecutable(env.STRIPE_MOCK_PATH)) return env.STRIPE_MOCK_PATH;
    throw new Error(`STRIPE_MOCK_PATH=${env.STRIPE_MOCK_PATH} is not an executable file`);
  }
  const targetDir = join(binaryCacheRoot(env), `stripe-mock-${STRIPE_MOCK_VERSION}`);
  const cached = join(targetDir, 'stripe-mock');
  if (isExecutable(cached)) return cached;
  if (spawnSync('go', ['version'], { env }).status !== 0) {
    throw new Error(`stripe-mock is not cached at ${cached} and Go is not installed to build it`);
  }
  const install = {
    label: `stripe-mock ${STRIPE_MOCK_VERSION}`,
    goPackage: GO_PACKAGE,
    targetDir,
    binary: 'stripe-mock',
  };
  return await goInstall(install, log);
}

export interface RunningStripeMock {
  url: string;
  process: ServiceProcess;
}

/** Starts stripe-mock on a free local port (HTTP only) and resolves once it answers. */
export async function startStripeMock(path: string): Promise<RunningStripeMock> {
  const port = await findFreePort();
  const service = runCommand('stripe-mock', path, ['-http-addr', `127.0.0.1:${port}`], {}, { log: () => {} });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/v1/payment_intents`, service, 30_000);
  return { url, process: service };
}
