import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Config } from '../config';
import {
  charactersPageMaxSize,
  type Character,
  type CharacterInput,
  type CharactersPage,
  type CliqueType,
} from './character';
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
  /** The clique's characters ordered by name, then id: a page (default: the first page of the largest size). */
  listCharacters(cliqueType: CliqueType, page?: CharactersPage): Promise<StoredCharacter[]>;
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
  const { db, kind, describe, close } = await openDatabase(location);
  return new KyselyCharacterStore(db, kind, describe, close);
}

class KyselyCharacterStore implements CharacterStore {
  constructor(
    private readonly db: Kysely<CharactersDatabase>,
    readonly kind: StoreKind,
    readonly describe: string,
    readonly close: () => Promise<void>,
  ) {}

  async findCharacter(id: string): Promise<StoredCharacter | undefined> {
    const row = await this.db.selectFrom('characters').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toCharacter(row);
  }

  async listCharacters(
    cliqueType: CliqueType,
    { first, after }: CharactersPage = { first: charactersPageMaxSize },
  ): Promise<StoredCharacter[]> {
    let query = this.db.selectFrom('characters').selectAll().where('clique_type', '=', cliqueType);
    if (after !== undefined && after !== null) {
      const last = await this.findCharacter(after);
      if (!last) throw new CharacterNotFoundError(after);
      query = query.where((eb) => eb(eb.refTuple('name', 'id'), '>', eb.tuple(last.name, last.id)));
    }
    const rows = await query.orderBy('name').orderBy('id').limit(first).execute();
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
