import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliCacheDir, resolveTemporalCli } from '../../src/dev/temporal-cli';

function fakeBinary(dir: string, name = 'temporal'): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return path;
}

describe('resolveTemporalCli', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'cli-resolver-'));
  const quiet = () => {};

  it('prefers TEMPORAL_CLI_PATH over everything else', async () => {
    const explicit = fakeBinary(join(scratch, 'explicit'));
    fakeBinary(join(scratch, 'bin'));
    const resolved = await resolveTemporalCli(
      { TEMPORAL_CLI_PATH: explicit, PATH: join(scratch, 'bin') },
      quiet,
    );
    expect(resolved).toEqual({ path: explicit, source: 'TEMPORAL_CLI_PATH' });
  });

  it('refuses a TEMPORAL_CLI_PATH that is not an executable file', async () => {
    await expect(resolveTemporalCli({ TEMPORAL_CLI_PATH: join(scratch, 'missing') }, quiet)).rejects.toThrow(
      /TEMPORAL_CLI_PATH=.*missing is not an executable file/,
    );
  });

  it('uses `temporal` on PATH before the cache', async () => {
    const cacheHome = join(scratch, 'cache-with-binary');
    fakeBinary(cliCacheDir({ XDG_CACHE_HOME: cacheHome }));
    const onPath = fakeBinary(join(scratch, 'path-bin'));
    const resolved = await resolveTemporalCli(
      { PATH: join(scratch, 'path-bin'), XDG_CACHE_HOME: cacheHome },
      quiet,
    );
    expect(resolved).toEqual({ path: onPath, source: 'PATH' });
  });

  it('uses the cached build when nothing is on PATH', async () => {
    const cacheHome = join(scratch, 'cache-only');
    const cached = fakeBinary(cliCacheDir({ XDG_CACHE_HOME: cacheHome }));
    const resolved = await resolveTemporalCli(
      { PATH: join(scratch, 'empty'), XDG_CACHE_HOME: cacheHome },
      quiet,
    );
    expect(resolved).toEqual({ path: cached, source: 'cache' });
  });

  it('falls back to the SDK download cache', async () => {
    const downloads = join(scratch, 'sdk-downloads');
    const download = fakeBinary(downloads, 'temporal-cli-1.5.1');
    const env = {
      PATH: join(scratch, 'empty'),
      XDG_CACHE_HOME: join(scratch, 'empty-cache'),
      TMPDIR: downloads,
    };
    expect(await resolveTemporalCli(env, quiet)).toEqual({ path: download, source: 'SDK download cache' });
  });

  it('names every way it tried and what to set when none works', async () => {
    const env = {
      PATH: join(scratch, 'empty'),
      XDG_CACHE_HOME: join(scratch, 'empty-cache'),
      TMPDIR: scratch,
    };
    await expect(resolveTemporalCli(env, quiet)).rejects.toThrow(/1\. TEMPORAL_CLI_PATH: not set/);
    await expect(resolveTemporalCli(env, quiet)).rejects.toThrow(/2\. `temporal` on PATH: not found/);
    await expect(resolveTemporalCli(env, quiet)).rejects.toThrow(/3\. cached build .*empty-cache/);
    await expect(resolveTemporalCli(env, quiet)).rejects.toThrow(/4\. Go toolchain: `go` not found/);
    await expect(resolveTemporalCli(env, quiet)).rejects.toThrow(/5\. SDK download cache in .*: empty/);
    await expect(resolveTemporalCli(env, quiet)).rejects.toThrow(/set TEMPORAL_CLI_PATH.*\n.*GOBIN=/);
  });
});
