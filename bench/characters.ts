/**
 * `npm run bench:characters`: requests per second of `character(id)` and `upsertCharacter` through the
 * whole stack (axios client → HTTP on loopback → Mercurius → store) on the embedded PGlite store and on
 * PostgreSQL, each beside the same server over a store that answers a constant without I/O, so the
 * ratio shows what the database costs. Bounded: each measurement stops after BENCH_DURATION_MS
 * (default 3000) or BENCH_MAX_REQUESTS (default 20000), whichever comes first.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { Character, CharacterInput } from '../src/characters/character';
import { createCharactersClient, type CharactersClient } from '../src/characters/client';
import { buildCharactersServer } from '../src/characters/server';
import { openCharacterStore, type CharacterStore, type StoredCharacter } from '../src/characters/store';
import { runBounded, timed } from './stats';

const durationMs = Number(process.env.BENCH_DURATION_MS ?? 3_000);
const maxRequests = Number(process.env.BENCH_MAX_REQUESTS ?? 20_000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);
const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const seeded = 100;

interface Operation {
  name: string;
  run(client: CharactersClient, ids: string[], n: number): Promise<unknown>;
}

const operations: Operation[] = [
  { name: 'character(id)', run: (client, ids, n) => client.getCharacter(ids[n % ids.length]!) },
  {
    name: 'upsertCharacter',
    run: (client, ids, n) =>
      client.upsertCharacter({
        id: ids[n % ids.length]!,
        name: `Bench ${n}`,
        cliqueType: n % 2 ? 'KOOKS' : 'POGUES',
      }),
  },
];

/** The same server with a store that does no I/O: the ceiling the real stores are compared with. */
function constantStore(): CharacterStore {
  const character: StoredCharacter = {
    id: 'constant',
    name: 'John B',
    isHero: true,
    cliqueType: 'POGUES',
    revision: 1,
  };
  return {
    kind: 'pglite',
    describe: 'constant',
    findCharacter: () => Promise.resolve(character),
    listCharacters: () => Promise.resolve([character]),
    upsertCharacter: (input: CharacterInput) => Promise.resolve({ ...character, id: input.id ?? 'constant' }),
    close: () => Promise.resolve(),
  };
}

async function serve(store: CharacterStore) {
  const app = await buildCharactersServer({ store, production: true });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/graphql`;
  return { client: createCharactersClient({ url }), close: () => app.close() };
}

async function measure(client: CharactersClient, ids: string[], operation: Operation): Promise<number> {
  for (let n = 0; n < 100; n++) await operation.run(client, ids, n); // warm-up: connections, JIT, caches
  let issued = 0;
  const deadline = performance.now() + durationMs;
  const { ms } = await timed(() =>
    runBounded(maxRequests, concurrency, async (n) => {
      if (performance.now() >= deadline) return;
      issued++;
      await operation.run(client, ids, n);
    }),
  );
  return issued / (ms / 1000);
}

async function seed(client: CharactersClient): Promise<string[]> {
  const characters: Character[] = [];
  for (let n = 0; n < seeded; n++) {
    characters.push(
      await client.upsertCharacter({ name: `Seed ${n}`, cliqueType: n % 2 ? 'KOOKS' : 'POGUES' }),
    );
  }
  return characters.map((character) => character.id);
}

interface StoreUnderTest {
  label: string;
  open(): Promise<CharacterStore>;
  remove(): Promise<void>;
}

function storesUnderTest(): StoreUnderTest[] {
  const dataDir = mkdtempSync(join(tmpdir(), 'characters-bench-'));
  const schema = `characters_bench_${randomBytes(4).toString('hex')}`;
  return [
    {
      label: 'pglite',
      open: () => openCharacterStore({ dataDir }),
      remove: () => Promise.resolve(rmSync(dataDir, { recursive: true, force: true })),
    },
    {
      label: 'postgres',
      open: () => openCharacterStore({ databaseUrl, schema }),
      remove: async () => {
        const pg = new Client({ connectionString: databaseUrl });
        await pg.connect();
        await pg.query(`drop schema if exists "${schema}" cascade`).finally(() => pg.end());
      },
    },
  ];
}

async function main() {
  console.log(
    `characters bench: concurrency ${concurrency}, ≤ ${durationMs} ms or ≤ ${maxRequests} requests each, loopback`,
  );
  const constant = await serve(constantStore());
  const rows: { store: string; operation: string; perSecond: number; constant: number }[] = [];
  try {
    for (const target of storesUnderTest()) {
      let store: CharacterStore | undefined;
      try {
        store = await target.open();
        const server = await serve(store);
        try {
          const ids = await seed(server.client);
          for (const operation of operations) {
            const baseline = await measure(constant.client, ids, operation);
            const perSecond = await measure(server.client, ids, operation);
            rows.push({ store: target.label, operation: operation.name, perSecond, constant: baseline });
          }
        } finally {
          await server.close();
        }
      } catch (error) {
        console.log(`${target.label}: skipped (${error instanceof Error ? error.message : String(error)})`);
      } finally {
        await store?.close();
        await target.remove().catch(() => undefined);
      }
    }
  } finally {
    await constant.close();
  }
  console.log('');
  console.log('store     operation         req/s   constant req/s   store/constant');
  for (const row of rows) {
    console.log(
      `${row.store.padEnd(9)} ${row.operation.padEnd(15)} ${row.perSecond.toFixed(0).padStart(7)}   ${row.constant
        .toFixed(0)
        .padStart(14)}   ${(row.perSecond / row.constant).toFixed(2).padStart(14)}`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
