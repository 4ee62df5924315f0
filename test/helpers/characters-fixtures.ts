import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { FastifyInstance } from 'fastify';
import { Client } from 'pg';
import type { DatabaseLocation, StoreKind } from '../../src/characters/database';
import { buildCharactersServer } from '../../src/characters/server';
import { openCharacterStore, type CharacterStore } from '../../src/characters/store';

/** The PostgreSQL the tests use; each run gets a schema of its own, dropped afterwards. */
export const testDatabaseUrl =
  process.env.CHARACTERS_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export const storeKinds: StoreKind[] = ['pglite', 'postgres'];

/** A fresh, empty place for a store of the given kind: a temp directory or a unique PostgreSQL schema. */
export interface StoreLocationFixture {
  location: DatabaseLocation;
  open(): Promise<CharacterStore>;
  remove(): Promise<void>;
}

let pgliteTemplate: Promise<string> | undefined;

/** The installed PGlite's version: a data directory is PGlite's own format, so a template serves one version. */
function pgliteVersion(): string {
  const manifest = join(dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/**
 * initdb of a new PGlite directory takes seconds; copying one does not. One directory per PGlite version is
 * initialised in the temp directory and kept there for every test file and run: built aside and renamed into
 * place, so a file never copies a half-made one, and of two files that build it at once the first rename wins.
 */
function initialisedPGliteDir(): Promise<string> {
  pgliteTemplate ??= (async () => {
    const template = join(tmpdir(), `characters-pglite-template-${pgliteVersion()}`);
    if (existsSync(template)) return template;
    const building = mkdtempSync(`${template}-building-`);
    const database = await PGlite.create({ dataDir: building });
    await database.close();
    try {
      renameSync(building, template);
    } catch {
      rmSync(building, { recursive: true, force: true });
    }
    return template;
  })();
  return pgliteTemplate;
}

export async function storeLocation(kind: StoreKind): Promise<StoreLocationFixture> {
  if (kind === 'pglite') {
    const dataDir = mkdtempSync(join(tmpdir(), 'characters-pglite-'));
    cpSync(await initialisedPGliteDir(), dataDir, { recursive: true });
    const location = { dataDir };
    return {
      location,
      open: () => openCharacterStore(location),
      remove: () => Promise.resolve(rmSync(dataDir, { recursive: true, force: true })),
    };
  }
  const schema = `characters_test_${randomBytes(6).toString('hex')}`;
  const location = { databaseUrl: testDatabaseUrl, schema };
  return {
    location,
    open: () => openCharacterStore(location),
    remove: async () => {
      const client = new Client({ connectionString: testDatabaseUrl });
      await client.connect();
      try {
        await client.query(`drop schema if exists "${schema}" cascade`);
      } finally {
        await client.end();
      }
    },
  };
}

/** A characters server on a random loopback port over a fresh store; `close` removes everything. */
export async function startCharactersService(
  kind: StoreKind,
  options: { production?: boolean; apiKeys?: string[] } = {},
): Promise<{ url: string; store: CharacterStore; app: FastifyInstance; close(): Promise<void> }> {
  const fixture = await storeLocation(kind);
  const store = await fixture.open();
  const app = await buildCharactersServer({
    store,
    production: options.production ?? false,
    apiKeys: options.apiKeys,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    store,
    app,
    close: async () => {
      await app.close();
      await store.close();
      await fixture.remove();
    },
  };
}
