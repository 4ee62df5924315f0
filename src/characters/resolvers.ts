import type { IResolvers } from 'mercurius';
import type { CharacterInput, CliqueType } from './character';
import type { CharacterStore } from './store';

/** GraphQL has validated the arguments against the schema before these run. */
export function charactersResolvers(store: CharacterStore): IResolvers {
  return {
    Query: {
      character: (_root: unknown, { id }: { id: string }) =>
        store.findCharacter(id).then((found) => found ?? null),
      characters: (_root: unknown, { cliqueType }: { cliqueType: CliqueType }) =>
        store.listCharacters(cliqueType),
    },
    Mutation: {
      upsertCharacter: (_root: unknown, { input }: { input: CharacterInput }) => store.upsertCharacter(input),
    },
  };
}
