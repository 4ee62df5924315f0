import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Config } from '../config';
import type { Character, CharacterInput, CliqueType } from './character';
import {
  openDatabase,
  type CharacterRow,
  type CharactersDatabase,
  type DatabaseLocation,
  type StoreKind,
} from './database';
import { CharacterNotFoundError } from './errors';

/** A character as the store holds it: `revision` counts the writes it has seen (1 after creation). */
export interface StoredCharacter extends Character {
  revision: number;
}

export interface CharacterStore {
  readonly kind: StoreKind;
  /** Where the data lives, without credentials. */
  readonly describe: string;
  findCharacter(id: string): Promise<StoredCharacter | undefined>;
  /** Every character of the clique, ordered by name, then id. */
  listCharacters(cliqueType: CliqueType): Promise<StoredCharacter[]>;
  /** Creates (no id) or updates (known id); an unknown id throws CharacterNotFoundError and stores nothing. */
  upsertCharacter(input: CharacterInput): Promise<StoredCharacter>;
  close(): Promise<void>;
}

/** `openCharacterStore(config)` or `openCharacterStore({ databaseUrl?, dataDir, schema? })`. */
export async function openCharacterStore(
  options: Pick<Config, 'DATABASE_URL' | 'CHARACTERS_DATA_DIR'> | DatabaseLocation,
): Promise<CharacterStore> {
  const location: DatabaseLocation =
    'CHARACTERS_DATA_DIR' in options
      ? { databaseUrl: options.DATABASE_URL, dataDir: options.CHARACTERS_DATA_DIR }
      : options;
  const { db, kind, describe } = await openDatabase(location);
  return new KyselyCharacterStore(db, kind, describe);
}

class KyselyCharacterStore implements CharacterStore {
  constructor(
    private readonly db: Kysely<CharactersDatabase>,
    readonly kind: StoreKind,
    readonly describe: string,
  ) {}

  async findCharacter(id: string): Promise<StoredCharacter | undefined> {
    const row = await this.db.selectFrom('characters').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toCharacter(row);
  }

  async listCharacters(cliqueType: CliqueType): Promise<StoredCharacter[]> {
    const rows = await this.db
      .selectFrom('characters')
      .selectAll()
      .where('clique_type', '=', cliqueType)
      .orderBy('name')
      .orderBy('id')
      .execute();
    return rows.map(toCharacter);
  }

  async upsertCharacter(input: CharacterInput): Promise<StoredCharacter> {
    if (input.id === undefined || input.id === null) {
      const row = await this.db
        .insertInto('characters')
        .values({
          id: randomUUID(),
          name: input.name,
          clique_type: input.cliqueType,
          is_hero: input.isHero ?? false,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toCharacter(row);
    }
    // One statement: PostgreSQL locks the row and re-reads it under concurrent writers, so no update is
    // lost and `isHero` falls back to the value the row holds at that moment.
    const row = await this.db
      .updateTable('characters')
      .set((eb) => ({
        name: input.name,
        clique_type: input.cliqueType,
        is_hero: input.isHero ?? eb.ref('is_hero'),
        revision: eb('revision', '+', 1),
        updated_at: new Date(),
      }))
      .where('id', '=', input.id)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new CharacterNotFoundError(input.id);
    return toCharacter(row);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}

function toCharacter(row: Selectable<CharacterRow>): StoredCharacter {
  return {
    id: row.id,
    name: row.name,
    isHero: row.is_hero,
    // The column's check constraint admits only the two clique types.
    cliqueType: row.clique_type as CliqueType,
    revision: row.revision,
  };
}
