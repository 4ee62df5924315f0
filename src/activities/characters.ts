import { ApplicationFailure } from '@temporalio/common';
import type { Character, CharacterInput, CliqueType } from '../characters/character';
import type { CharactersClient } from '../characters/client';
import { CharactersClientError, CharactersGraphQLError } from '../characters/client-errors';

/** `type` of the ApplicationFailures the characters activities throw. */
export const characterFailureTypes = {
  /** upsertCharacter named an id the service does not hold. Non-retryable. */
  notFound: 'CHARACTER_NOT_FOUND',
  /** The service refused the request as invalid GraphQL (unknown enum value, missing name, wrong type). Non-retryable. */
  invalidRequest: 'CHARACTERS_INVALID_REQUEST',
  /** The service answered in a shape the characters service does not allow. Non-retryable. */
  badResponse: 'CHARACTERS_BAD_RESPONSE',
  /** No answer, or a failure inside the service. Retryable. */
  unavailable: 'CHARACTERS_UNAVAILABLE',
} as const;

/** One activity per operation of the characters service; every argument and result is plain JSON. */
export function createCharactersActivities(client: CharactersClient) {
  return {
    getCharacter: (id: string): Promise<Character | null> => callCharacters(() => client.getCharacter(id)),

    listCharacters: (cliqueType: CliqueType): Promise<Character[]> =>
      callCharacters(() => client.listCharacters(cliqueType)),

    upsertCharacter: (input: CharacterInput): Promise<Character> =>
      callCharacters(() => client.upsertCharacter(input)),
  };
}

export type CharactersActivities = ReturnType<typeof createCharactersActivities>;

async function callCharacters<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw charactersFailure(error);
  }
}

/**
 * The one mapping of characters client errors to Temporal: an invalid request or an unknown id will fail
 * the same way on every attempt, so it is non-retryable; no answer or a failure inside the service is
 * retryable under the activity's retry policy.
 */
function charactersFailure(error: unknown): unknown {
  if (!(error instanceof CharactersClientError)) return error;
  const details =
    error instanceof CharactersGraphQLError
      ? [{ status: error.status, code: error.code, path: error.path, errors: error.errors }]
      : [];
  if (error.retryable) {
    return ApplicationFailure.create({
      type: characterFailureTypes.unavailable,
      message: error.message,
      details,
    });
  }
  const type =
    error instanceof CharactersGraphQLError
      ? error.notFound
        ? characterFailureTypes.notFound
        : characterFailureTypes.invalidRequest
      : characterFailureTypes.badResponse;
  return ApplicationFailure.create({ type, message: error.message, nonRetryable: true, details });
}
