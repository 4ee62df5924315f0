import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { characterFailureTypes, createCharactersActivities } from '../../src/activities/characters';
import { charactersApiKeys } from '../../src/characters/api-keys';
import {
  characterNameMaxLength,
  charactersPageMaxSize,
  type CharacterInput,
} from '../../src/characters/character';
import { charactersClientFromConfig, createCharactersClient } from '../../src/characters/client';
import { CharactersGraphQLError } from '../../src/characters/client-errors';
import { ConfigError } from '../../src/config';
import { runService, waitForHttp } from '../../src/dev/child-process';
import { findFreePort } from '../../src/dev/ports';
import { startCharactersService, storeLocation } from '../helpers/characters-fixtures';
import { rejectionOf } from '../helpers/rejection';

type Service = Awaited<ReturnType<typeof startCharactersService>>;

async function postGraphQL(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('characters lists and names are bounded', () => {
  let service: Service;

  beforeAll(async () => {
    service = await startCharactersService('pglite');
    for (let index = 0; index < charactersPageMaxSize + 5; index += 1) {
      const name = `Kook ${String(index).padStart(3, '0')}`;
      await service.store.upsertCharacter({ name, cliqueType: 'KOOKS' });
    }
  });
  afterAll(() => service.close());

  it('refuses one query of 40 aliased characters lists before it runs', async () => {
    const aliases = Array.from(
      { length: 40 },
      (_, index) => `c${index}: characters(cliqueType: KOOKS) { name }`,
    );
    const { status, body } = await postGraphQL(
      service.url,
      { query: `{ ${aliases.join(' ')} }` },
      { accept: 'application/graphql-response+json' },
    );
    expect(status).toBe(400);
    expect(body).toMatchObject({ errors: [{ extensions: { code: 'QUERY_TOO_COSTLY' } }] });
  });

  it('returns at most the page size per list and the next page after the last id', async () => {
    const query = 'query ($after: ID) { characters(cliqueType: KOOKS, after: $after) { id name } }';
    const first = await postGraphQL(service.url, { query });
    const page = (first.body.data as { characters: { id: string; name: string }[] }).characters;
    expect(page).toHaveLength(charactersPageMaxSize);
    expect(page[0]?.name).toBe('Kook 000');
    const next = await postGraphQL(service.url, { query, variables: { after: page.at(-1)?.id } });
    const rest = (next.body.data as { characters: { name: string }[] }).characters;
    expect(rest.map((character) => character.name)).toEqual([
      'Kook 100',
      'Kook 101',
      'Kook 102',
      'Kook 103',
      'Kook 104',
    ]);
  });

  it('refuses a page size outside 1 to the maximum, naming `first`', async () => {
    for (const first of [0, charactersPageMaxSize + 1]) {
      const { body } = await postGraphQL(service.url, {
        query: `{ characters(cliqueType: KOOKS, first: ${first}) { id } }`,
      });
      expect(body).toMatchObject({
        data: { characters: null },
        errors: [
          { message: expect.stringMatching(/^first: /) as unknown, extensions: { code: 'BAD_USER_INPUT' } },
        ],
      });
    }
  });

  it('the typed client reads a clique longer than one page in full', async () => {
    const all = await createCharactersClient({ url: service.url }).listCharacters('KOOKS');
    expect(all).toHaveLength(charactersPageMaxSize + 5);
    expect(new Set(all.map((character) => character.id)).size).toBe(all.length);
  });

  it('refuses a name longer than the limit and stores nothing', async () => {
    const client = createCharactersClient({ url: service.url });
    const error = await rejectionOf(
      client.upsertCharacter({ name: 'x'.repeat(63 * 1024), cliqueType: 'POGUES' }),
      CharactersGraphQLError,
    );
    expect(error).toMatchObject({ code: 'BAD_USER_INPUT', retryable: false });
    expect(error.message).toMatch(/^input\.name: /);
    await rejectionOf(client.upsertCharacter({ name: '', cliqueType: 'POGUES' }), CharactersGraphQLError);
    expect(await service.store.listCharacters('POGUES')).toEqual([]);
    const longest = await client.upsertCharacter({
      name: 'y'.repeat(characterNameMaxLength),
      cliqueType: 'POGUES',
    });
    expect(longest.name).toHaveLength(characterNameMaxLength);
  });
});

describe('upsertCharacter needs a key when the service has keys', () => {
  let service: Service;
  const keys = ['characters-key-new', 'characters-key-old'];
  const production = { CHARACTERS_PORT: 8070, NODE_ENV: 'production' as const };

  beforeAll(async () => {
    service = await startCharactersService('pglite', { apiKeys: keys });
  });
  afterAll(() => service.close());

  it('refuses a mutation without a key or with a wrong one (401) and stores nothing', async () => {
    const mutation = {
      query: 'mutation { upsertCharacter(input: {name: "JJ", cliqueType: POGUES}) { id } }',
    };
    for (const headers of [
      {},
      { authorization: 'Bearer wrong' },
      { authorization: 'characters-key-new' },
    ] as Record<string, string>[]) {
      const { status, body } = await postGraphQL(service.url, mutation, headers);
      expect(status).toBe(401);
      expect(body).toEqual({ errors: [expect.objectContaining({ extensions: { code: 'UNAUTHORIZED' } })] });
    }
    expect(await service.store.listCharacters('POGUES')).toEqual([]);
    const withOldKey = await postGraphQL(service.url, mutation, {
      authorization: 'Bearer characters-key-old',
    });
    expect(withOldKey.status).toBe(200);
  });

  it('answers queries without a key', async () => {
    const { status } = await postGraphQL(service.url, { query: '{ characters(cliqueType: KOOKS) { id } }' });
    expect(status).toBe(200);
  });

  it('the client from the configuration and the activities send the first key', async () => {
    const client = charactersClientFromConfig({
      ...production,
      CHARACTERS_URL: service.url,
      CHARACTERS_API_KEYS: keys,
    });
    const activities = createCharactersActivities(client);
    const kiara: CharacterInput = { name: 'Kiara', cliqueType: 'KOOKS' };
    const created = await new MockActivityEnvironment().run(activities.upsertCharacter, kiara);
    expect(created).toMatchObject({ name: 'Kiara' });

    const keyless = createCharactersActivities(createCharactersClient({ url: service.url }));
    const refused = await rejectionOf(
      new MockActivityEnvironment().run(keyless.upsertCharacter, { ...kiara, name: 'Rafe' }),
      ApplicationFailure,
    );
    expect(refused).toMatchObject({ type: characterFailureTypes.invalidRequest, nonRetryable: true });
  });

  it('production without CHARACTERS_API_KEYS stops the service and the worker client, naming it', () => {
    expect(() => charactersApiKeys(production)).toThrow(ConfigError);
    expect(() => charactersApiKeys(production)).toThrow(/CHARACTERS_API_KEYS/);
    expect(() => charactersClientFromConfig(production)).toThrow(/CHARACTERS_API_KEYS/);
    expect(charactersApiKeys({ NODE_ENV: 'development' })).toBeUndefined();
  });
});

describe('the embedded store takes its data directory for one service alone', () => {
  it('refuses a second store on a directory in use and admits one once the first has closed', async () => {
    const fixture = await storeLocation('pglite');
    try {
      const first = await fixture.open();
      const written = await first.upsertCharacter({ name: 'Sarah', cliqueType: 'KOOKS' });
      await expect(fixture.open()).rejects.toThrow(/is in use by another characters service/);
      expect(await first.findCharacter(written.id)).toMatchObject({ name: 'Sarah' });
      await first.close();

      const next = await fixture.open();
      try {
        expect(await next.findCharacter(written.id)).toMatchObject({ name: 'Sarah' });
      } finally {
        await next.close();
      }
    } finally {
      await fixture.remove();
    }
  });

  it('a second characters service on the same directory refuses to start; the first keeps serving', async () => {
    const fixture = await storeLocation('pglite');
    const [firstPort, secondPort] = [await findFreePort(), await findFreePort()];
    const env = (port: number) => ({
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      CHARACTERS_DATA_DIR: fixture.location.dataDir,
      CHARACTERS_PORT: String(port),
    });
    const first = runService('characters-1', 'src/characters/main.ts', env(firstPort), { log: () => {} });
    try {
      const health = `http://127.0.0.1:${firstPort}/health`;
      await waitForHttp(health, first, 90_000);
      const said: string[] = [];
      const second = runService('characters-2', 'src/characters/main.ts', env(secondPort), {
        log: (line) => said.push(line),
      });
      expect(await second.exited).toBe(1);
      expect(said.join('\n')).toMatch(/is in use by another characters service/);
      expect((await fetch(health)).status).toBe(200);
    } finally {
      await first.stop();
      await fixture.remove();
    }
  });
});
