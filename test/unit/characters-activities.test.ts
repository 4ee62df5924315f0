import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createCharactersActivities, type CharactersActivities } from '../../src/activities/characters';
import type { CharacterInput } from '../../src/characters/character';
import { createCharactersClient } from '../../src/characters/client';
import { findFreePort } from '../../src/dev/ports';
import { characterFailureTypes } from '../../src/activities/characters';
import { startCharactersService } from '../helpers/characters-fixtures';
import { rejectionOf } from '../helpers/rejection';

type Service = Awaited<ReturnType<typeof startCharactersService>>;

describe('characters activities', () => {
  let service: Service;
  let activities: CharactersActivities;
  const env = new MockActivityEnvironment();
  // MockActivityEnvironment.run infers its arguments loosely; this keeps the activity's own types.
  const run = <A extends unknown[], R>(activity: (...args: A) => Promise<R>, ...args: A): Promise<R> =>
    env.run<A, R, typeof activity>(activity, ...args);

  beforeAll(async () => {
    service = await startCharactersService('postgres');
    activities = createCharactersActivities(createCharactersClient({ url: service.url }));
  });
  afterAll(() => service.close());

  it('upserts, gets and lists through the service', async () => {
    const created = await run(activities.upsertCharacter, {
      name: 'Sarah',
      cliqueType: 'KOOKS',
      isHero: true,
    });
    expect(created).toEqual({ id: created.id, name: 'Sarah', isHero: true, cliqueType: 'KOOKS' });
    expect(await run(activities.getCharacter, created.id)).toEqual(created);
    expect(await run(activities.getCharacter, 'no-such-character')).toBeNull();
    expect(await run(activities.listCharacters, 'KOOKS')).toEqual([created]);
    expect(await run(activities.listCharacters, 'POGUES')).toEqual([]);
  });

  it('fails an upsert of an unknown id for good, as CHARACTER_NOT_FOUND', async () => {
    const failure = await rejectionOf(
      run(activities.upsertCharacter, { id: 'no-such-character', name: 'Ward', cliqueType: 'KOOKS' }),
      ApplicationFailure,
    );
    expect(failure).toMatchObject({ type: characterFailureTypes.notFound, nonRetryable: true });
    expect(failure.message).toBe('character not found: no-such-character');
  });

  it('fails invalid input for good, as an invalid request', async () => {
    const failure = await rejectionOf(
      run(activities.upsertCharacter, { name: 'x', cliqueType: 'TOURISTS' } as unknown as CharacterInput),
      ApplicationFailure,
    );
    expect(failure).toMatchObject({ type: characterFailureTypes.invalidRequest, nonRetryable: true });
    expect(failure.message).toMatch(/"TOURISTS" does not exist in "CliqueType" enum/);
  });

  it('leaves an unreachable service retryable', async () => {
    const port = await findFreePort();
    const unreachable = createCharactersActivities(
      createCharactersClient({ url: `http://127.0.0.1:${port}/graphql` }),
    );
    const failure = await rejectionOf(run(unreachable.getCharacter, 'x'), ApplicationFailure);
    expect(failure).toMatchObject({ type: characterFailureTypes.unavailable, nonRetryable: false });
  });
});
