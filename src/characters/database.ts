import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, sql, type ColumnType, type Dialect, type Generated } from 'kysely';
import { Pool } from 'pg';
import { lockDataDir } from './data-dir-lock';
import { migrateToLatest } from './migrations';
import { PGliteDialect } from './pglite-dialect';

/** The row as stored; column names are SQL's snake_case. */
export interface CharacterRow {
  id: string;
  name: string;
  clique_type: string;
  is_hero: ColumnType<boolean, boolean | undefined, boolean>;
  revision: Generated<number>;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, never, Date>;
}

export interface CharactersDatabase {
  characters: CharacterRow;
}

export interface DatabaseLocation {
  /** PostgreSQL when set (postgres://…); otherwise the embedded PGlite database in `dataDir`. */
  databaseUrl?: string | undefined;
  /** Directory of the embedded database files; created when missing. */
  dataDir?: string | undefined;
  /** PostgreSQL schema for the tables (tests use one per run); created when missing. Default: search_path. */
  schema?: string | undefined;
}

export type StoreKind = 'postgres' | 'pglite';

export interface OpenDatabase {
  db: Kysely<CharactersDatabase>;
  kind: StoreKind;
  describe: string;
  /** Closes the connections, then gives up the data directory's lock (PGlite). */
  close: () => Promise<void>;
}

/** Opens the database, migrated to the latest version. Both kinds run the same SQL. */
export async function openDatabase(location: DatabaseLocation): Promise<OpenDatabase> {
  const { dialect, kind, describe, release } = await dialectFor(location);
  let db = new Kysely<CharactersDatabase>({ dialect });
  const close = async () => {
    await db.destroy();
    await release();
  };
  try {
    if (location.schema) {
      await sql`create schema if not exists ${sql.id(location.schema)}`.execute(db);
      db = db.withSchema(location.schema);
    }
    await migrateToLatest(db as Kysely<unknown>, location.schema);
  } catch (error) {
    await close();
    throw error;
  }
  return { db, kind, describe, close };
}

async function dialectFor(
  location: DatabaseLocation,
): Promise<{ dialect: Dialect; kind: StoreKind; describe: string; release: () => Promise<void> }> {
  if (location.databaseUrl) {
    const pool = new Pool({ connectionString: location.databaseUrl, max: 10 });
    return {
      dialect: new PostgresDialect({ pool }),
      kind: 'postgres',
      describe: redactPassword(location.databaseUrl),
      release: () => Promise.resolve(),
    };
  }
  if (!location.dataDir)
    throw new Error('the embedded characters store needs a data directory (CHARACTERS_DATA_DIR)');
  const dataDir = resolve(location.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const release = await lockDataDir(dataDir);
  try {
    const database = await PGlite.create({ dataDir });
    return { dialect: new PGliteDialect(database), kind: 'pglite', describe: `pglite:${dataDir}`, release };
  } catch (error) {
    await release();
    throw error;
  }
}

function redactPassword(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return 'postgres';
  }
}
