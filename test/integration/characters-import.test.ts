import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { createCharactersActivities, type CharactersActivities } from '../../src/activities/characters';
import type { CharacterInput } from '../../src/characters/character';
import { createCharactersClient, type CharactersClient } from '../../src/characters/client';
import { characterImportProgress, startCharacterImport } from '../../src/client/character-import-client';
import { type CharacterImportInput } from '../../src/workflows/character-import/definitions';
import { characterFailureTypes } from '../../src/activities/characters';
import { startCharactersService } from '../helpers/characters-fixtures';
import { connectClient, uniqueTaskQueue, withWorker } from '../helpers/temporal';
import { eventually } from '../helpers/eventually';

type Service = Awaited<ReturnType<typeof startCharactersService>>;
type Temporal = Awaited<ReturnType<typeof connectClient>>;

const fastRetry = { initialIntervalMs: 50, maximumAttempts: 5 };

describe('importCharacters workflow on a real Temporal dev server', () => {
  let service: Service;
  let characters: CharactersClient;
  let temporal: Temporal;

  beforeAll(async () => {
    service = await startCharactersService('postgres');
    characters = createCharactersClient({ url: service.url });
    temporal = await connectClient();
  });
  afterAll(async () => {
    await temporal.close();
    await service.close();
  });

  // Each test works in a clique of names of its own, so tests do not see one another's characters.
  const named = (prefix: string, items: CharacterInput[]) =>
    items.map((item) => ({ ...item, name: `${prefix} ${item.name}` }));
  const namesIn = async (prefix: string) =>
    [...(await characters.listCharacters('KOOKS')), ...(await characters.listCharacters('POGUES'))]
      .filter((character) => character.name.startsWith(`${prefix} `))
      .map((character) => character.name)
      .sort();

  function runImport(input: CharacterImportInput, activities: CharactersActivities) {
    const taskQueue = uniqueTaskQueue('character-import');
    return withWorker({ taskQueue, activities }, async () => {
      const handle = await startCharacterImport(temporal.client, input, { taskQueue });
      const result = await handle.result();
      return { result, progress: await characterImportProgress(handle) };
    });
  }

  it('upserts every item, reports each one, and a re-run with the same input creates nothing new', async () => {
    const prefix = randomUUID();
    const existing = await characters.upsertCharacter({
      name: `${prefix} Ward`,
      cliqueType: 'KOOKS',
      isHero: true,
    });
    const input: CharacterImportInput = {
      importId: prefix,
      retry: fastRetry,
      characters: [
        ...named(prefix, [
          { name: 'John B', cliqueType: 'POGUES', isHero: true },
          { name: 'Sarah', cliqueType: 'KOOKS' },
          { name: 'Ward', cliqueType: 'KOOKS' },
        ]),
        { id: 'no-such-character', name: `${prefix} Ghost`, cliqueType: 'POGUES' },
        { id: existing.id, name: `${prefix} Ward Cameron`, cliqueType: 'KOOKS' },
      ],
    };
    const activities = createCharactersActivities(characters);

    const first = await runImport(input, activities);
    expect(first.result).toMatchObject({ total: 5, done: 5, failed: 1 });
    expect(first.result.statuses).toEqual(['created', 'created', 'updated', 'failed', 'updated']);
    expect(first.result.ids[2]).toBe(existing.id);
    expect(first.result.ids[4]).toBe(existing.id);
    expect(first.result.ids[3]).toBe('no-such-character');
    expect(first.result.failures).toEqual([
      { index: 3, message: 'character not found: no-such-character', type: characterFailureTypes.notFound },
    ]);
    expect(first.result.characters[0]).toEqual({
      id: first.result.ids[0],
      name: `${prefix} John B`,
      isHero: true,
      cliqueType: 'POGUES',
    });
    const { characters: _, ...progress } = first.result;
    expect(first.progress).toEqual(progress);
    const afterFirst = await namesIn(prefix);
    expect(afterFirst).toEqual([`${prefix} John B`, `${prefix} Sarah`, `${prefix} Ward Cameron`]);

    // Item 2 ("Ward") now matches nothing: item 4 renamed that character. The re-run recreates it once.
    const second = await runImport(input, activities);
    expect(second.result.ids.slice(0, 2)).toEqual(first.result.ids.slice(0, 2));
    expect(second.result.statuses).toEqual(['updated', 'updated', 'created', 'failed', 'updated']);
    const third = await runImport(input, activities);
    expect(third.result.ids).toEqual(second.result.ids);
    expect(third.result.statuses).toEqual(['updated', 'updated', 'updated', 'failed', 'updated']);
    expect(await namesIn(prefix)).toEqual([
      `${prefix} John B`,
      `${prefix} Sarah`,
      `${prefix} Ward`,
      `${prefix} Ward Cameron`,
    ]);
  });

  it('creates a character once when a create was stored but its answer was lost', async () => {
    const prefix = randomUUID();
    const real = createCharactersActivities(characters);
    let lostAnswers = 0;
    const activities: CharactersActivities = {
      ...real,
      upsertCharacter: async (input) => {
        const character = await real.upsertCharacter(input);
        if (!input.id && lostAnswers < 2) {
          lostAnswers++;
          throw ApplicationFailure.retryable(
            'connection reset after the request was sent',
            characterFailureTypes.unavailable,
          );
        }
        return character;
      },
    };
    const input: CharacterImportInput = {
      importId: prefix,
      retry: fastRetry,
      characters: named(prefix, [
        { name: 'Pope', cliqueType: 'POGUES' },
        { name: 'Kiara', cliqueType: 'POGUES', isHero: true },
      ]),
    };

    const { result } = await runImport(input, activities);
    expect(lostAnswers).toBe(2);
    expect(result).toMatchObject({ done: 2, failed: 0, statuses: ['created', 'created'] });
    expect(await namesIn(prefix)).toEqual([`${prefix} Kiara`, `${prefix} Pope`]);
    expect(await characters.getCharacter(result.ids[1]!)).toMatchObject({
      name: `${prefix} Kiara`,
      isHero: true,
    });
  });

  it('answers the progress query while the import runs', async () => {
    const prefix = randomUUID();
    const real = createCharactersActivities(characters);
    let releaseLast!: () => void;
    const lastMayRun = new Promise<void>((resolve) => (releaseLast = resolve));
    const activities: CharactersActivities = {
      ...real,
      upsertCharacter: async (input) => {
        if (input.name.endsWith('Topper')) await lastMayRun;
        return real.upsertCharacter(input);
      },
    };
    const input: CharacterImportInput = {
      importId: prefix,
      retry: fastRetry,
      characters: named(prefix, [
        { name: 'Rafe', cliqueType: 'KOOKS' },
        { name: 'Topper', cliqueType: 'KOOKS' },
      ]),
    };
    const taskQueue = uniqueTaskQueue('character-import');
    await withWorker({ taskQueue, activities }, async () => {
      const handle = await startCharacterImport(temporal.client, input, { taskQueue });
      const progress = await eventually(
        () => characterImportProgress(handle),
        (read) => read.done >= 1,
        { intervalMs: 50, what: 'the first character to be imported' },
      );
      expect(progress).toMatchObject({ total: 2, done: 1, failed: 0, statuses: ['created', 'pending'] });
      expect(progress.ids[0]).toEqual(expect.any(String));
      expect(progress.ids[1]).toBeNull();

      // Starting the same import while it runs reaches this execution instead of starting another.
      const again = await startCharacterImport(temporal.client, input, { taskQueue });
      expect(again.firstExecutionRunId).toBe(handle.firstExecutionRunId);

      releaseLast();
      expect(await handle.result()).toMatchObject({ done: 2, statuses: ['created', 'created'] });
    });
    expect(await namesIn(prefix)).toEqual([`${prefix} Rafe`, `${prefix} Topper`]);
  });
});
