import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { runCommand, waitForHttp, type ServiceProcess } from './child-process';
import { binaryCacheRoot, goInstall, isExecutable, type GoInstall, type Log } from './go-build';
import { findFreePort } from './ports';
import { ToxiproxyClient } from './toxiproxy-client';

/** Pinned release; its go.mod has no `replace` line, so `go install` builds it from the module proxy. */
export const TOXIPROXY_VERSION = 'v2.5.0';
/** Toxiproxy's own default API port, which `toxiproxy-cli` talks to. */
export const TOXIPROXY_DEFAULT_PORT = 8474;

export function toxiproxyInstall(env: NodeJS.ProcessEnv = process.env): GoInstall {
  return {
    label: `Toxiproxy ${TOXIPROXY_VERSION}`,
    goPackage: `github.com/Shopify/toxiproxy/v2/cmd/server@${TOXIPROXY_VERSION}`,
    targetDir: join(binaryCacheRoot(env), `toxiproxy-${TOXIPROXY_VERSION}`),
    binary: 'server',
  };
}

/** The Toxiproxy server from the cache, built with Go into it (never the repo) when missing. */
export async function resolveToxiproxy(
  env: NodeJS.ProcessEnv = process.env,
  log: Log = (line) => console.error(`[go build] ${line}`),
): Promise<string> {
  const install = toxiproxyInstall(env);
  const cached = join(install.targetDir, install.binary);
  if (isExecutable(cached)) return cached;
  if (spawnSync('go', ['version'], { env }).status !== 0) {
    throw new Error(
      `${install.label} is not in ${cached} and there is no Go toolchain to build it: install Go, or run ` +
        `\`GOBIN=${install.targetDir} go install ${install.goPackage}\` on a machine that has it.`,
    );
  }
  return goInstall(install, log);
}

export interface Toxiproxy {
  /** Its HTTP API, e.g. `http://127.0.0.1:8474`. */
  apiUrl: string;
  client: ToxiproxyClient;
  process: ServiceProcess;
  stop(): Promise<void>;
}

/** Starts a Toxiproxy server on loopback (its API on `port`, default a free one) and waits until it answers. */
export async function startToxiproxy(
  options: { port?: number; log?: (line: string) => void } = {},
): Promise<Toxiproxy> {
  const binary = await resolveToxiproxy();
  const port = options.port ?? (await findFreePort());
  const server = runCommand(
    'toxiproxy',
    binary,
    ['-host', '127.0.0.1', '-port', String(port)],
    // Toxiproxy reads LOG_LEVEL with its own level names; at `warn` it logs every connection a toxic closes.
    { LOG_LEVEL: 'error' },
    { log: options.log },
  );
  const apiUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${apiUrl}/version`, server);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { apiUrl, client: new ToxiproxyClient(apiUrl), process: server, stop: () => server.stop() };
}
