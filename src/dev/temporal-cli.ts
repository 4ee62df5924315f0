import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { binaryCacheRoot, goInstall, isExecutable, type Log } from './go-build';

/** The pinned Temporal CLI release; its go.mod has no `replace` line, so `go install` builds it. */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
const GO_PACKAGE = `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`;

export interface ResolvedCli {
  path: string;
  source: 'TEMPORAL_CLI_PATH' | 'PATH' | 'cache' | 'go build' | 'SDK download cache';
}

export function cliCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(binaryCacheRoot(env), TEMPORAL_CLI_VERSION);
}

function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && isExecutable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** The SDK's own download lands in the OS temp dir as `temporal-*`; reuse one if it is there. */
function findSdkDownload(dir: string): string | undefined {
  try {
    return readdirSync(dir)
      .filter((name) => name.startsWith('temporal-sdk-') || name.startsWith('temporal-cli-'))
      .map((name) => join(dir, name))
      .find(isExecutable);
  } catch {
    return undefined;
  }
}

/**
 * Finds a Temporal CLI without the internet. Dev, tests and benchmarks all come through here.
 * Order: TEMPORAL_CLI_PATH, `temporal` on PATH, the cached build, a fresh Go build, the SDK's download cache.
 */
export async function resolveTemporalCli(
  env: NodeJS.ProcessEnv = process.env,
  log: Log = (line) => console.error(`[temporal-cli] ${line}`),
): Promise<ResolvedCli> {
  const tried: string[] = [];

  if (env.TEMPORAL_CLI_PATH) {
    if (isExecutable(env.TEMPORAL_CLI_PATH))
      return { path: env.TEMPORAL_CLI_PATH, source: 'TEMPORAL_CLI_PATH' };
    throw new Error(`TEMPORAL_CLI_PATH=${env.TEMPORAL_CLI_PATH} is not an executable file`);
  }
  tried.push('1. TEMPORAL_CLI_PATH: not set');

  const onPath = findOnPath('temporal', env);
  if (onPath) return { path: onPath, source: 'PATH' };
  tried.push('2. `temporal` on PATH: not found');

  const cacheDir = cliCacheDir(env);
  const cached = join(cacheDir, 'temporal');
  if (isExecutable(cached)) return { path: cached, source: 'cache' };
  tried.push(`3. cached build ${cached}: not there`);

  const go = spawnSync('go', ['version'], { encoding: 'utf8', env });
  if (go.status === 0) {
    try {
      const install = {
        label: `Temporal CLI ${TEMPORAL_CLI_VERSION}`,
        goPackage: GO_PACKAGE,
        targetDir: cacheDir,
        binary: 'temporal',
      };
      return { path: await goInstall(install, log), source: 'go build' };
    } catch (error) {
      tried.push(`4. go install ${GO_PACKAGE}: failed: ${(error as Error).message}`);
    }
  } else {
    tried.push('4. Go toolchain: `go` not found, cannot build the CLI');
  }

  const sdkDownloadDir = env.TMPDIR || tmpdir();
  const sdkDownload = findSdkDownload(sdkDownloadDir);
  if (sdkDownload) return { path: sdkDownload, source: 'SDK download cache' };
  tried.push(`5. SDK download cache in ${sdkDownloadDir}: empty`);

  throw new Error(
    [
      'No Temporal CLI found. Tried:',
      ...tried.map((line) => `  ${line}`),
      'Fix one of: set TEMPORAL_CLI_PATH to a `temporal` binary; put `temporal` on PATH;',
      `install Go and run \`GOBIN=${cacheDir} go install ${GO_PACKAGE}\`;`,
      'or set TEMPORAL_ADDRESS to a running Temporal server.',
    ].join('\n'),
  );
}
