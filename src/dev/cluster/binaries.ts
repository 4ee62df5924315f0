import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { binaryCacheRoot, goInstall, isExecutable, type GoInstall, type Log } from '../go-build';

/** Pinned releases; none of their go.mod files has a `replace` line, so `go install` builds them. */
export const TEMPORAL_SERVER_VERSION = 'v1.30.6';
export const UI_SERVER_VERSION = 'v2.55.0';
const SERVER_MODULE = 'go.temporal.io/server';
const UI_SERVER_MODULE = 'github.com/temporalio/ui-server/v2';

export interface ClusterBinaries {
  /** The Temporal server: `server --config-file … start --service frontend`. */
  server: string;
  /** The schema tool (temporal-sql-tool), with the schemas embedded. */
  sql: string;
  /** The Web UI server. */
  uiServer: string;
  /** The server module's source in the Go module cache (its config files). */
  serverModuleDir: string;
  /** The UI server module's source in the Go module cache (its config templates). */
  uiServerModuleDir: string;
}

function installs(env: NodeJS.ProcessEnv): Record<'server' | 'sql' | 'uiServer', GoInstall> {
  const root = binaryCacheRoot(env);
  const serverDir = join(root, `server-${TEMPORAL_SERVER_VERSION}`);
  return {
    server: {
      label: `Temporal server ${TEMPORAL_SERVER_VERSION}`,
      goPackage: `${SERVER_MODULE}/cmd/server@${TEMPORAL_SERVER_VERSION}`,
      targetDir: serverDir,
      binary: 'server',
    },
    sql: {
      label: `Temporal schema tool ${TEMPORAL_SERVER_VERSION}`,
      goPackage: `${SERVER_MODULE}/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}`,
      targetDir: serverDir,
      binary: 'sql',
    },
    uiServer: {
      label: `Temporal UI server ${UI_SERVER_VERSION}`,
      goPackage: `${UI_SERVER_MODULE}/cmd/server@${UI_SERVER_VERSION}`,
      targetDir: join(root, `ui-server-${UI_SERVER_VERSION}`),
      binary: 'server',
    },
  };
}

function go(args: string[], env: NodeJS.ProcessEnv): string {
  const result = spawnSync('go', args, { encoding: 'utf8', env });
  if (result.error) throw new Error(`\`go ${args.join(' ')}\` failed: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`\`go ${args.join(' ')}\` failed: ${result.stderr}`);
  return result.stdout.trim();
}

/** The module's directory in the Go module cache, downloaded through the module proxy when missing. */
function moduleDir(module: string, version: string, env: NodeJS.ProcessEnv): string {
  const dir = join(go(['env', 'GOMODCACHE'], env), `${module}@${version}`);
  if (existsSync(dir)) return dir;
  const downloaded = JSON.parse(go(['mod', 'download', '-json', `${module}@${version}`], env)) as {
    Dir: string;
  };
  return downloaded.Dir;
}

/**
 * The cluster's Go binaries from the cache, building the missing ones with the Go toolchain (one at a time:
 * each uses every core), and the module sources their config comes from. Nothing lands in the repo.
 */
export async function resolveClusterBinaries(
  env: NodeJS.ProcessEnv = process.env,
  log: Log = (line) => console.error(`[go build] ${line}`),
): Promise<ClusterBinaries> {
  const paths: Partial<Record<'server' | 'sql' | 'uiServer', string>> = {};
  for (const [name, install] of Object.entries(installs(env)) as Array<
    ['server' | 'sql' | 'uiServer', GoInstall]
  >) {
    const cached = join(install.targetDir, install.binary);
    if (isExecutable(cached)) {
      paths[name] = cached;
      continue;
    }
    if (spawnSync('go', ['version'], { env }).status !== 0) {
      throw new Error(
        `${install.label} is not in ${cached} and there is no Go toolchain to build it: install Go, or run ` +
          `\`GOBIN=${install.targetDir} go install ${install.goPackage}\` on a machine that has it.`,
      );
    }
    paths[name] = await goInstall(install, log);
  }
  return {
    server: paths.server as string,
    sql: paths.sql as string,
    uiServer: paths.uiServer as string,
    serverModuleDir: moduleDir(SERVER_MODULE, TEMPORAL_SERVER_VERSION, env),
    uiServerModuleDir: moduleDir(UI_SERVER_MODULE, UI_SERVER_VERSION, env),
  };
}
