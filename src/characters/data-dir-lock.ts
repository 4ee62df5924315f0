import { lock } from 'proper-lockfile';

/**
 * A lock not refreshed for this long belongs to a process that died; the next start may take it over. Long
 * enough that PGlite's synchronous work (seconds when it initialises a directory) cannot make the holder's own
 * lock look stale; it is refreshed every 5 s.
 */
export const dataDirLockStaleMs = 30_000;

/**
 * Takes the embedded database's directory for this process alone. PGlite is a single-process PostgreSQL:
 * two processes on one directory overwrite each other's files and acknowledged writes are lost. The lock
 * is `<dataDir>.lock` (an atomic mkdir, refreshed while held); a second service fails here and never
 * opens the files. Resolves to the function that releases it.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  try {
    return await lock(dataDir, {
      stale: dataDirLockStaleMs,
      update: 5_000,
      // Losing the lock means another process may be writing: stop rather than write beside it.
      onCompromised: (error) => {
        throw new Error(`lost the lock on the characters data directory ${dataDir}: ${error.message}`);
      },
    });
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ELOCKED') throw error;
    throw new Error(
      `the characters data directory ${dataDir} is in use by another characters service (lock ${dataDir}.lock); ` +
        `stop that one first (a crashed one's lock is taken over after ${dataDirLockStaleMs / 1000} s), or set CHARACTERS_DATA_DIR to another directory`,
      { cause: error },
    );
  }
}
