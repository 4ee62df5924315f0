import type { CharacterStore } from '../../src/characters/store';
import { startCharactersService } from '../helpers/characters-fixtures';
import { rawRequest } from '../helpers/raw-http';

// Requests a GraphQL-over-HTTP server must refuse before any GraphQL runs: a 4xx whose message names the
// problem, never a 200 with "Internal server error".

type Service = Awaited<ReturnType<typeof startCharactersService>>;

let service: Service;

beforeAll(async () => {
  service = await startCharactersService('pglite');
});
afterAll(() => service.close());

const mutation = 'mutation { upsertCharacter(input: { name: "Edge", cliqueType: KOOKS }) { id } }';

async function post(body: string, headers: Record<string, string> = { 'Content-Type': 'application/json' }) {
  const response = await rawRequest(service.url, {
    method: 'POST',
    headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
    body,
  });
  const answer = JSON.parse(response.text) as { data: unknown; errors: { message: string }[] };
  return { status: response.status, answer, message: answer.errors?.[0]?.message ?? '' };
}

async function stored(store: CharacterStore): Promise<number> {
  const lists = await Promise.all([store.listCharacters('KOOKS'), store.listCharacters('POGUES')]);
  return lists.flat().length;
}

describe('a request body that is not a GraphQL request', () => {
  it.each([
    ['a number as query', '{"query": 1}', /^query: .*expected string, received number/],
    ['an object as query', '{"query": {"text": "{ x }"}}', /^query: .*expected string, received object/],
    ['no query', '{"variables": {}}', /^query: .*expected string, received undefined/],
    [
      'a number as operationName',
      '{"query": "{ characters(cliqueType: KOOKS) { id } }", "operationName": 3}',
      /^operationName: .*expected string/,
    ],
    [
      'a string as variables',
      '{"query": "{ characters(cliqueType: KOOKS) { id } }", "variables": "x"}',
      /^variables: .*expected record/,
    ],
    ['an array', '[]', /^body: .*expected object, received array/],
  ])('refuses %s with 400 naming the member', async (_case, body, message) => {
    const { status, answer, message: said } = await post(body);
    expect(status).toBe(400);
    expect(answer).not.toHaveProperty('data'); // refused before execution: no data entry
    expect(said).toMatch(message);
  });

  it('refuses truncated JSON with 400', async () => {
    const { status, message } = await post('{"query": "{ charac');
    expect(status).toBe(400);
    expect(message).toMatch(/not well-formed JSON/);
  });

  it('refuses an empty JSON body with 400', async () => {
    const { status, message } = await post('');
    expect(status).toBe(400);
    expect(message).toMatch(/the body is empty/);
  });

  it('refuses a body over the limit with 413 naming the limit', async () => {
    const body = JSON.stringify({ query: mutation, variables: { padding: 'x'.repeat(70_000) } });
    const { status, message } = await post(body);
    expect(status).toBe(413);
    expect(message).toMatch(/larger than the limit of 65536 bytes/);
    expect(await stored(service.store)).toBe(0);
  });
});

describe('a request body of another media type', () => {
  it.each([
    ['no content type', {}, /without a Content-Type/],
    ['no content type, with the preflight header', { 'mercurius-require-preflight': 'true' }, /without/],
    [
      'XML, with the preflight header',
      { 'Content-Type': 'application/xml', 'x-mercurius-operation-name': 'x' },
      /"application\/xml"/,
    ],
  ])('refuses %s with 415 naming what is accepted', async (_case, headers, sent) => {
    const { status, message } = await post(JSON.stringify({ query: mutation }), headers);
    expect(status).toBe(415);
    expect(message).toMatch(sent);
    expect(message).toMatch(/application\/json/);
    expect(await stored(service.store)).toBe(0);
  });

  it('still serves application/json and application/graphql', async () => {
    const query = '{ characters(cliqueType: POGUES) { id } }';
    expect((await post(JSON.stringify({ query }))).status).toBe(200);
    const graphql = await post(query, { 'Content-Type': 'application/graphql' });
    expect(graphql).toMatchObject({ status: 200, answer: { data: { characters: [] } } });
  });
});
