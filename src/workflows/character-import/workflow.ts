import {
  ActivityFailure,
  ApplicationFailure,
  proxyActivities,
  setHandler,
  sleep,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { CharactersActivities } from '../../activities/characters';
import type { Character, CharacterInput, CliqueType } from '../../characters/character';
import {
  importProgressQuery,
  type CharacterImportInput,
  type CharacterImportProgress,
  type CharacterImportResult,
} from './definitions';

/**
 * Upserts a list of characters and can be run again with the same input without creating duplicates.
 *
 * The characters service has no idempotency key and refuses to create under a caller's id, so an item without an id
 * is matched on its natural key (clique type, name) against what the service already holds: a match is
 * updated in place, and only a miss creates. Updates are idempotent and Temporal retries them; a create is
 * not, so it runs one attempt at a time and, after a failure, the workflow looks again before retrying, in
 * case the create was stored but its answer lost.
 */
export async function importCharacters(input: CharacterImportInput): Promise<CharacterImportResult> {
  const initialIntervalMs = input.retry?.initialIntervalMs ?? 1_000;
  const maximumAttempts = input.retry?.maximumAttempts ?? 10;
  const options: ActivityOptions = {
    startToCloseTimeout: '30 seconds',
    retry: {
      initialInterval: initialIntervalMs,
      backoffCoefficient: 2,
      maximumInterval: '1 minute',
      maximumAttempts,
    },
  };
  const { listCharacters, upsertCharacter } = proxyActivities<CharactersActivities>(options);
  const { upsertCharacter: createCharacterOnce } = proxyActivities<CharactersActivities>({
    ...options,
    retry: { maximumAttempts: 1 },
  });

  const items = input.characters;
  const progress: CharacterImportProgress = {
    total: items.length,
    done: 0,
    failed: 0,
    ids: items.map((item) => item.id ?? null),
    statuses: items.map(() => 'pending'),
    failures: [],
  };
  const characters: (Character | null)[] = items.map(() => null);
  setHandler(importProgressQuery, () => progress);

  const knownIds = new Map<string, string>();
  const cliquesToLookUp = new Set(items.filter((item) => !item.id).map((item) => item.cliqueType));
  for (const cliqueType of cliquesToLookUp) {
    // Listed by name then id: with several characters of one name, the first is the one matched.
    for (const character of await listCharacters(cliqueType)) {
      const key = naturalKey(character);
      if (!knownIds.has(key)) knownIds.set(key, character.id);
    }
  }

  const createCharacter = async (item: CharacterInput): Promise<Character> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await createCharacterOnce({ ...item, id: null });
      } catch (error) {
        if (!isRetryable(error) || attempt >= maximumAttempts) throw error;
      }
      await sleep(Math.min(initialIntervalMs * 2 ** (attempt - 1), 60_000));
      const stored = (await listCharacters(item.cliqueType)).find(
        (character) => character.name === item.name,
      );
      if (stored) return upsertCharacter({ ...item, id: stored.id });
    }
  };

  for (const [index, item] of items.entries()) {
    const id = item.id ?? knownIds.get(naturalKey(item));
    try {
      const character = id ? await upsertCharacter({ ...item, id }) : await createCharacter(item);
      knownIds.set(naturalKey(character), character.id);
      characters[index] = character;
      progress.ids[index] = character.id;
      progress.statuses[index] = id ? 'updated' : 'created';
    } catch (error) {
      const cause = causeOf(error);
      progress.failed++;
      progress.statuses[index] = 'failed';
      progress.failures.push({
        index,
        message: cause instanceof Error ? cause.message : String(cause),
        type: cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined,
      });
    }
    progress.done++;
  }
  return { ...progress, characters };
}

function naturalKey(character: { cliqueType: CliqueType; name: string }): string {
  return `${character.cliqueType}\u0000${character.name}`;
}

/** What the activity threw, unwrapped from the ActivityFailure a workflow sees. */
function causeOf(error: unknown): unknown {
  return error instanceof ActivityFailure ? error.cause : error;
}

// Non-retryable: the service refused the request (unknown id, invalid input); anything else may pass later.
function isRetryable(error: unknown): boolean {
  const cause = causeOf(error);
  return !(cause instanceof ApplicationFailure && cause.nonRetryable);
}
