import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** initdb of a new PGlite directory takes seconds; copying one initialised once per test file does not. */
function initialisedPGliteDir(): Promise<string> {
  pgliteTemplate ??= (async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'characters-pglite-template-'));
    const database = await PGlite.create({ dataDir });
    await database.close();
    return dataDir;
  })();
  return pgliteTemplate;
}

afterAll(async () => {
  if (pgliteTemplate) rmSync(await pgliteTemplate, { recursive: true, force: true });
});

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
