import { CharacterNotFoundError } from '../../src/characters/errors';
import type { CharacterStore } from '../../src/characters/store';
import { storeKinds, storeLocation, type StoreLocationFixture } from '../helpers/characters-fixtures';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(storeKinds)('character store on %s', (kind) => {
  let fixture: StoreLocationFixture;
  let store: CharacterStore;

  beforeEach(async () => {
    fixture = await storeLocation(kind);
    store = await fixture.open();
  });
  afterEach(async () => {
    await store.close();
    await fixture.remove();
  });

  it('creates with a new uuid and isHero false when the input has no id', async () => {
    const created = await store.upsertCharacter({ name: 'John B', cliqueType: 'POGUES' });
    expect(created.id).toMatch(uuid);
    expect(created).toEqual({
      id: created.id,
      name: 'John B',
      isHero: false,
      cliqueType: 'POGUES',
      revision: 1,
    });
    const other = await store.upsertCharacter({ name: 'John B', cliqueType: 'POGUES', isHero: true });
    expect(other.id).not.toBe(created.id);
    expect(other.isHero).toBe(true);
    expect(await store.findCharacter(created.id)).toEqual(created);
  });

  it('updates a known id in place: name and cliqueType replaced, isHero kept when omitted', async () => {
    const created = await store.upsertCharacter({ name: 'Rafe', cliqueType: 'KOOKS', isHero: true });
    const renamed = await store.upsertCharacter({
      id: created.id,
      name: 'Rafe Cameron',
      cliqueType: 'POGUES',
    });
    expect(renamed).toEqual({
      id: created.id,
      name: 'Rafe Cameron',
      isHero: true,
      cliqueType: 'POGUES',
      revision: 2,
    });
    const demoted = await store.upsertCharacter({
      id: created.id,
      name: 'Rafe Cameron',
      cliqueType: 'POGUES',
      isHero: false,
    });
    expect(demoted.isHero).toBe(false);
    const keptNull = await store.upsertCharacter({
      id: created.id,
      name: 'Rafe',
      cliqueType: 'KOOKS',
      isHero: null,
    });
    expect(keptNull).toMatchObject({ isHero: false, name: 'Rafe', cliqueType: 'KOOKS', revision: 4 });
    expect(await store.listCharacters('KOOKS')).toHaveLength(1);
    expect(await store.listCharacters('POGUES')).toEqual([]);
  });

  it('refuses an unknown id with CharacterNotFoundError and stores nothing', async () => {
    const attempt = store.upsertCharacter({ id: 'no-such-character', name: 'Ward', cliqueType: 'KOOKS' });
    await expect(attempt).rejects.toBeInstanceOf(CharacterNotFoundError);
    await expect(attempt).rejects.toThrow('character not found: no-such-character');
    expect(await store.findCharacter('no-such-character')).toBeUndefined();
    expect(await store.listCharacters('KOOKS')).toEqual([]);
  });

  it('lists one clique by name, then id, and nothing for an empty clique', async () => {
    for (const name of ['Sarah', 'Kiara', 'Topper', 'Kiara'])
      await store.upsertCharacter({ name, cliqueType: 'KOOKS' });
    await store.upsertCharacter({ name: 'Pope', cliqueType: 'POGUES' });
    const kooks = await store.listCharacters('KOOKS');
    expect(kooks.map((character) => character.name)).toEqual(['Kiara', 'Kiara', 'Sarah', 'Topper']);
    const [first, second] = kooks;
    expect(first!.id < second!.id).toBe(true);
    expect((await store.listCharacters('POGUES')).map((character) => character.name)).toEqual(['Pope']);
    await store.upsertCharacter({ id: first!.id, name: 'Kiara', cliqueType: 'POGUES' });
    expect(await store.listCharacters('KOOKS')).toHaveLength(3);
  });

  it('keeps its data across a restart and migrates an up-to-date database without change', async () => {
    const created = await store.upsertCharacter({ name: 'JJ', cliqueType: 'POGUES', isHero: true });
    await store.close();
    store = await fixture.open();
    expect(await store.findCharacter(created.id)).toEqual(created);
    expect(await store.listCharacters('POGUES')).toEqual([created]);
  });

  it('applies every one of many concurrent upserts of one id', async () => {
    const created = await store.upsertCharacter({ name: 'Barry', cliqueType: 'POGUES' });
    const writers = 40;
    const results = await Promise.all(
      Array.from({ length: writers }, (_, index) =>
        store.upsertCharacter({
          id: created.id,
          name: `Barry ${index}`,
          cliqueType: index % 2 ? 'KOOKS' : 'POGUES',
          isHero: index % 3 === 0 ? true : undefined,
        }),
      ),
    );
    // Each write saw the one before it: revisions 2..41 handed out once each, none lost.
    expect(results.map((result) => result.revision).sort((a, b) => a - b)).toEqual(
      Array.from({ length: writers }, (_, index) => index + 2),
    );
    const last = results.find((result) => result.revision === writers + 1)!;
    expect(await store.findCharacter(created.id)).toEqual(last);
  });
});
