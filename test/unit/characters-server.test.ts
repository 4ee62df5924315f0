import type { AddressInfo } from 'node:net';
import {
  buildClientSchema,
  buildSchema,
  findBreakingChanges,
  findDangerousChanges,
  getIntrospectionQuery,
  printType,
  type GraphQLEnumType,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import type { CliqueType } from '../../src/characters/character';
import { createCharactersClient, type CharactersClient } from '../../src/characters/client';
import { CharactersGraphQLError, CharactersTransportError } from '../../src/characters/client-errors';
import { buildCharactersServer } from '../../src/characters/server';
import type { CharacterStore } from '../../src/characters/store';
import { findFreePort } from '../../src/dev/ports';
import { startCharactersService, storeKinds } from '../helpers/characters-fixtures';
import { rejectionOf } from '../helpers/rejection';

type Service = Awaited<ReturnType<typeof startCharactersService>>;

async function postGraphQL(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

async function everyCharacter(client: CharactersClient) {
  const cliques: CliqueType[] = ['KOOKS', 'POGUES'];
  return (await Promise.all(cliques.map((clique) => client.listCharacters(clique)))).flat();
}

describe.each(storeKinds)('characters client and server over HTTP, %s store', (kind) => {
  let service: Service;
  let client: CharactersClient;

  beforeAll(async () => {
    service = await startCharactersService(kind);
    client = createCharactersClient({ url: service.url });
  });
  afterAll(() => service.close());

  it('creates, reads, updates and lists characters', async () => {
    expect(await client.listCharacters('POGUES')).toEqual([]);
    const created = await client.upsertCharacter({ name: 'Pope', cliqueType: 'POGUES' });
    expect(created).toEqual({ id: created.id, name: 'Pope', isHero: false, cliqueType: 'POGUES' });
    expect(await client.getCharacter(created.id)).toEqual(created);

    const hero = await client.upsertCharacter({
      id: created.id,
      name: 'Pope Heyward',
      cliqueType: 'POGUES',
      isHero: true,
    });
    expect(hero).toEqual({ id: created.id, name: 'Pope Heyward', isHero: true, cliqueType: 'POGUES' });
    const moved = await client.upsertCharacter({ id: created.id, name: 'Pope Heyward', cliqueType: 'KOOKS' });
    expect(moved.isHero).toBe(true);

    const other = await client.upsertCharacter({ name: 'Kiara', cliqueType: 'KOOKS' });
    expect(await client.listCharacters('KOOKS')).toEqual([other, moved]);
    expect(await client.listCharacters('POGUES')).toEqual([]);
  });

  it('returns null for an unknown id', async () => {
    expect(await client.getCharacter('no-such-character')).toBeNull();
  });

  it('refuses an upsert of an unknown id with a typed "character not found" error and stores nothing', async () => {
    const before = await everyCharacter(client);
    const graphQLError = await rejectionOf(
      client.upsertCharacter({ id: 'no-such-character', name: 'Ward', cliqueType: 'KOOKS' }),
      CharactersGraphQLError,
    );
    expect(graphQLError.message).toBe('character not found: no-such-character');
    expect(graphQLError.path).toEqual(['upsertCharacter']);
    expect(graphQLError.notFound).toBe(true);
    expect(graphQLError.retryable).toBe(false);
    expect(await everyCharacter(client)).toEqual(before);
  });

  it.each([
    [
      'an unknown enum value',
      { name: 'Shoupe', cliqueType: 'TOURISTS' },
      /"TOURISTS" does not exist in "CliqueType" enum/,
    ],
    ['a missing name', { cliqueType: 'KOOKS' }, /Field "name" of required type "String!" was not provided/],
    [
      'a wrong type for isHero',
      { name: 'Shoupe', cliqueType: 'KOOKS', isHero: 'yes' },
      /Boolean cannot represent/,
    ],
    ['a wrong type for name', { name: 42, cliqueType: 'KOOKS' }, /String cannot represent/],
  ])('answers %s with a GraphQL validation error and stores nothing', async (_case, input, message) => {
    const before = await everyCharacter(client);
    const graphQLError = await rejectionOf(client.upsertCharacter(input as never), CharactersGraphQLError);
    expect(graphQLError.message).toMatch(message);
    expect(graphQLError.status).toBe(400);
    expect(graphQLError.notFound).toBe(false);
    expect(graphQLError.retryable).toBe(false);
    expect(await everyCharacter(client)).toEqual(before);
  });

  it('refuses an unknown enum literal written in the query itself', async () => {
    const before = await everyCharacter(client);
    const { status, text } = await postGraphQL(
      service.url,
      { query: 'mutation { upsertCharacter(input: { name: "Shoupe", cliqueType: TOURISTS }) { id } }' },
      { accept: 'application/graphql-response+json' },
    );
    expect(status).toBe(400);
    expect(JSON.parse(text)).toEqual({
      errors: [expect.objectContaining({ message: expect.stringMatching(/TOURISTS/) as unknown })],
    });
    expect(await everyCharacter(client)).toEqual(before);
  });
});

describe('characters server protections', () => {
  let service: Service;
  let client: CharactersClient;

  beforeAll(async () => {
    service = await startCharactersService('postgres');
    client = createCharactersClient({ url: service.url });
  });
  afterAll(() => service.close());

  it('serves the schema of the spec, with the clique descriptions and only optional arguments added', async () => {
    const { text } = await postGraphQL(service.url, { query: getIntrospectionQuery() });
    const served = buildClientSchema((JSON.parse(text) as { data: IntrospectionQuery }).data);
    const spec = buildSchema(`
      enum CliqueType {
        "people who are elite, with wealthy parents"
        KOOKS
        "people eager to climb the social ladder and start anew"
        POGUES
      }
      type Character { id: ID! name: String! isHero: Boolean! cliqueType: CliqueType! }
      input CharacterInput { name: String! id: String isHero: Boolean cliqueType: CliqueType! }
      type Query { character(id: ID!): Character characters(cliqueType: CliqueType!): [Character!] }
      type Mutation { upsertCharacter(input: CharacterInput!): Character! }
    `);
    expect(findBreakingChanges(spec, served)).toEqual([]);
    expect(findDangerousChanges(spec, served).map((change) => change.description)).toEqual([
      'An optional arg first on Query.characters was added.',
      'An optional arg after on Query.characters was added.',
    ]);
    const cliques = (schema: GraphQLSchema) => printType(schema.getType('CliqueType') as GraphQLEnumType);
    expect(cliques(served)).toBe(cliques(spec));
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
  ])(
    'refuses a mutation sent as %s, which a browser would send cross-site without preflight',
    async (_case, type) => {
      const before = await everyCharacter(client);
      const { status, text } = await postGraphQL(
        service.url,
        { query: 'mutation { upsertCharacter(input: { name: "Forged", cliqueType: KOOKS }) { id } }' },
        { 'content-type': type },
      );
      // Refused as a media type GraphQL over HTTP does not read, before any CSRF check or parsing.
      expect(status).toBe(415);
      expect(text).toMatch(/is not accepted: send application\/json/);
      expect(await everyCharacter(client)).toEqual(before);
    },
  );

  it('refuses a GET without a preflight header and accepts it with one', async () => {
    const url = `${service.url}?query=${encodeURIComponent('{ characters(cliqueType: KOOKS) { id } }')}`;
    expect((await fetch(url)).status).toBe(400);
    const allowed = await fetch(url, { headers: { 'mercurius-require-preflight': 'true' } });
    expect(allowed.status).toBe(200);
  });

  it('refuses an operation costlier than the limit, counting aliases', async () => {
    const aliases = Array.from(
      { length: 13 },
      (_, index) => `c${index}: characters(cliqueType: KOOKS) { id name isHero cliqueType }`,
    );
    const { status, text } = await postGraphQL(
      service.url,
      { query: `{ ${aliases.join(' ')} }` },
      { accept: 'application/graphql-response+json' },
    );
    expect(status).toBe(400);
    expect(JSON.parse(text)).toMatchObject({ errors: [{ extensions: { code: 'QUERY_TOO_COSTLY' } }] });
    const cheap = await postGraphQL(service.url, { query: `{ ${aliases.slice(0, 2).join(' ')} }` });
    expect(cheap.status).toBe(200);
  });

  it('serves GraphiQL and introspection in development', async () => {
    expect((await fetch(service.url.replace('/graphql', '/graphiql'))).status).toBe(200);
    const { text } = await postGraphQL(service.url, { query: '{ __schema { queryType { name } } }' });
    expect(JSON.parse(text)).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
  });

  it('refuses introspection and serves no GraphiQL in production', async () => {
    const production = await startCharactersService('postgres', { production: true });
    try {
      expect((await fetch(production.url.replace('/graphql', '/graphiql'))).status).toBe(404);
      const { text } = await postGraphQL(production.url, { query: '{ __schema { queryType { name } } }' });
      expect(JSON.parse(text)).not.toHaveProperty('data');
      expect(text).toMatch(/introspection has been disabled/);
      const ordinary = await createCharactersClient({ url: production.url }).listCharacters('KOOKS');
      expect(ordinary).toEqual([]);
    } finally {
      await production.close();
    }
  });

  it('masks internal errors: no message, stack or SQL reaches the caller', async () => {
    const failure = () =>
      Promise.reject(new Error('relation "characters" does not exist: select * from characters'));
    const brokenStore: CharacterStore = {
      kind: 'postgres',
      describe: 'broken',
      findCharacter: failure,
      listCharacters: failure,
      upsertCharacter: failure,
      close: () => Promise.resolve(),
    };
    const app = await buildCharactersServer({ store: brokenStore });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/graphql`;
      const { text } = await postGraphQL(url, { query: '{ characters(cliqueType: KOOKS) { id } }' });
      expect(JSON.parse(text)).toEqual({
        data: { characters: null },
        errors: [
          {
            message: 'Internal server error',
            locations: [{ line: 1, column: 3 }],
            path: ['characters'],
            extensions: { code: 'INTERNAL_SERVER_ERROR' },
          },
        ],
      });
      const error = await rejectionOf(
        createCharactersClient({ url }).upsertCharacter({ name: 'x', cliqueType: 'KOOKS' }),
        CharactersGraphQLError,
      );
      expect(error).toMatchObject({
        message: 'Internal server error',
        retryable: true,
        path: ['upsertCharacter'],
      });
    } finally {
      await app.close();
    }
  });

  it('reports an unreachable service as a retryable transport error', async () => {
    const port = await findFreePort();
    const error = await rejectionOf(
      createCharactersClient({ url: `http://127.0.0.1:${port}/graphql` }).getCharacter('x'),
      CharactersTransportError,
    );
    expect(error).toMatchObject({
      retryable: true,
      message: expect.stringMatching(/ECONNREFUSED/) as unknown,
    });
  });
});
