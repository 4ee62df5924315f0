import axios, { type AxiosInstance } from 'axios';
import type { z } from 'zod';
import type { Config } from '../config';
import { charactersApiKeys } from './api-keys';
import { charactersPageMaxSize, type Character, type CharacterInput, type CliqueType } from './character';
import { graphQLResponseMediaType } from './response-media-type';
import {
  CharactersGraphQLError,
  CharactersResponseError,
  CharactersTransportError,
  type GraphQLErrorDetail,
} from './client-errors';
import {
  characterDataSchema,
  charactersDataSchema,
  graphQLResponseSchema,
  upsertCharacterDataSchema,
} from './client-schemas';

/** Typed access to the characters service. Failures are CharactersGraphQLError, CharactersTransportError or CharactersResponseError. */
export interface CharactersClient {
  /** null when no character has this id. */
  getCharacter(id: string): Promise<Character | null>;
  /** Every character of the clique in the service's order (name, then id), page by page; [] when none. */
  listCharacters(cliqueType: CliqueType): Promise<Character[]>;
  /** Creates (no id) or updates (id); an unknown id fails with a CharactersGraphQLError whose `notFound` is true. */
  upsertCharacter(input: CharacterInput): Promise<Character>;
}

export interface CharactersClientOptions {
  /** The GraphQL endpoint, e.g. http://127.0.0.1:8070/graphql. */
  url: string;
  timeoutMs?: number;
  /** Sent as `Authorization: Bearer <apiKey>`; the service requires one for upsertCharacter when it has keys. */
  apiKey?: string | undefined;
}

const characterFields = 'id name isHero cliqueType';
const documents = {
  character: `query character($id: ID!) { character(id: $id) { ${characterFields} } }`,
  characters: `query characters($cliqueType: CliqueType!, $first: Int, $after: ID) { characters(cliqueType: $cliqueType, first: $first, after: $after) { ${characterFields} } }`,
  upsertCharacter: `mutation upsertCharacter($input: CharacterInput!) { upsertCharacter(input: $input) { ${characterFields} } }`,
};

export function createCharactersClient({
  url,
  timeoutMs = 10_000,
  apiKey,
}: CharactersClientOptions): CharactersClient {
  const http = axios.create({
    timeout: timeoutMs,
    // GraphQL errors come with 200 or 4xx; the body, not the status, says what happened.
    validateStatus: () => true,
    headers: {
      'content-type': 'application/json',
      accept: `${graphQLResponseMediaType}, application/json;q=0.9`,
      ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    },
  });
  const request = <T>(operationName: keyof typeof documents, variables: object, dataSchema: z.ZodType<T>) =>
    postOperation(http, url, { query: documents[operationName], operationName, variables }, dataSchema);

  return {
    getCharacter: async (id) => (await request('character', { id }, characterDataSchema)).character,
    listCharacters: async (cliqueType) => {
      const all: Character[] = [];
      for (;;) {
        const after = all.at(-1)?.id;
        const variables = { cliqueType, first: charactersPageMaxSize, after };
        const page = (await request('characters', variables, charactersDataSchema)).characters ?? [];
        all.push(...page);
        if (page.length < charactersPageMaxSize) return all;
      }
    },
    upsertCharacter: async (input) =>
      (await request('upsertCharacter', { input }, upsertCharacterDataSchema)).upsertCharacter,
  };
}

/**
 * The client for the configured service: CHARACTERS_URL, else the local one on CHARACTERS_PORT, sending the
 * first of CHARACTERS_API_KEYS (required in production: a missing value throws, naming it).
 */
export function charactersClientFromConfig(
  config: Pick<Config, 'CHARACTERS_URL' | 'CHARACTERS_PORT' | 'CHARACTERS_API_KEYS' | 'NODE_ENV'>,
): CharactersClient {
  return createCharactersClient({
    url: config.CHARACTERS_URL ?? `http://127.0.0.1:${config.CHARACTERS_PORT}/graphql`,
    apiKey: charactersApiKeys(config)?.[0],
  });
}

async function postOperation<T>(
  http: AxiosInstance,
  url: string,
  body: { query: string; operationName: string; variables: object },
  dataSchema: z.ZodType<T>,
): Promise<T> {
  let response;
  try {
    response = await http.post<unknown>(url, body);
  } catch (error) {
    const reason = axios.isAxiosError(error) ? (error.code ?? error.message) : String(error);
    throw new CharactersTransportError(`characters service unreachable at ${url}: ${reason}`, undefined, {
      cause: error,
    });
  }
  const { status } = response;
  const parsed = graphQLResponseSchema.safeParse(response.data);
  const errors = parsed.success ? parsed.data.errors : undefined;
  if (errors && errors.length > 0) throw new CharactersGraphQLError(errors.map(toDetail), status);
  if (status === 429 || status >= 500)
    throw new CharactersTransportError(`characters service answered HTTP ${status}`, status);
  if (!parsed.success || status !== 200) {
    throw new CharactersResponseError(
      `characters service answered HTTP ${status} without a GraphQL result`,
      status,
    );
  }
  const data = dataSchema.safeParse(parsed.data.data);
  if (!data.success) {
    const problems = data.error.issues.map((issue) => `${issue.path.join('.') || 'data'}: ${issue.message}`);
    throw new CharactersResponseError(
      `unexpected ${body.operationName} result: ${problems.join('; ')}`,
      status,
    );
  }
  return data.data;
}

type WireError = NonNullable<z.infer<typeof graphQLResponseSchema>['errors']>[number];

function toDetail(error: WireError): GraphQLErrorDetail {
  return { message: error.message, path: error.path, code: error.extensions?.code };
}
