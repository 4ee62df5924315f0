// The character domain (characters and their clique types), shared by the store, the server, the client and workflows.
// Plain types only, so workflow code may `import type` them.

export const cliqueTypes = ['KOOKS', 'POGUES'] as const;
export type CliqueType = (typeof cliqueTypes)[number];

export interface Character {
  id: string;
  name: string;
  isHero: boolean;
  cliqueType: CliqueType;
}

/** Without `id` the upsert creates; with an id it updates that character. `isHero` omitted keeps its value. */
export interface CharacterInput {
  name: string;
  id?: string | null;
  isHero?: boolean | null;
  cliqueType: CliqueType;
}

/** The longest name stored, in characters. */
export const characterNameMaxLength = 200;

/** The most characters one `characters` list returns; the typed client pages through longer cliques. */
export const charactersPageMaxSize = 100;

/** A page of a clique: at most `first` characters after the one whose id is `after` (from the start without). */
export interface CharactersPage {
  first: number;
  after?: string | null;
}
