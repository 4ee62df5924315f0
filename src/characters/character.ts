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
