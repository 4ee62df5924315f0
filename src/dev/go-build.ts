import { spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export type Log = (line: string) => void;

/** Where Go-built binaries are cached, outside the repo: `$XDG_CACHE_HOME/temporal-cli` or `~/.cache/…`. */
export function binaryCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'temporal-cli');
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export interface GoInstall {
  /** What the progress lines call it, e.g. "Temporal CLI v1.5.1". */
  label: string;
  /** `module/path/cmd/x@version`; its go.mod must have no `replace` line. */
  goPackage: string;
  /** GOBIN: one directory per install, since several binaries share a name (`server`). */
  targetDir: string;
  /** The file `go install` leaves in targetDir. */
  binary: string;
}

/** Builds a pinned Go command into its cache directory, printing progress as packages compile. */
export async function goInstall(install: GoInstall, log: Log): Promise<string> {
  mkdirSync(install.targetDir, { recursive: true });
  log(`Building ${install.label} with Go into ${install.targetDir}`);
  log('The first build downloads modules and compiles many packages: it takes several minutes.');
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn('go', ['install', '-v', install.goPackage], {
      env: { ...process.env, GOBIN: install.targetDir },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let packages = 0;
    let tail = '';
    const ticker = setInterval(() => {
      log(`  … ${Math.round((Date.now() - started) / 1000)} s, ${packages} packages so far`);
    }, 30_000);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) {
        if (!line) continue;
        if (!line.startsWith('go: ')) packages += 1;
        tail = `${tail}\n${line}`.slice(-2000);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(ticker);
      if (code === 0) resolve();
      else reject(new Error(`go install ${install.goPackage} exited with ${code}:${tail}`));
    });
  });
  log(`Built ${install.label} in ${Math.round((Date.now() - started) / 1000)} s`);
  return join(install.targetDir, install.binary);
}
