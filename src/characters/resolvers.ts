import { GraphQLError } from 'graphql';
import type { IResolvers } from 'mercurius';
import { z } from 'zod';
import {
  characterNameMaxLength,
  charactersPageMaxSize,
  type CharacterInput,
  type CharactersPage,
  type CliqueType,
} from './character';
import { characterErrorCodes } from './errors';
import type { CharacterStore } from './store';

// GraphQL has checked the types; these add the bounds the schema's descriptions state.
const pageSchema = z.object({
  first: z.number().int().min(1).max(charactersPageMaxSize),
  after: z.string().nullish(),
});
const upsertSchema = z.object({
  input: z.looseObject({ name: z.string().min(1).max(characterNameMaxLength) }),
});

export function charactersResolvers(store: CharacterStore): IResolvers {
  return {
    Query: {
      character: (_root: unknown, { id }: { id: string }) =>
        store.findCharacter(id).then((found) => found ?? null),
      characters: (_root: unknown, { cliqueType, ...page }: CharactersPage & { cliqueType: CliqueType }) =>
        store.listCharacters(cliqueType, checked(pageSchema, page)),
    },
    Mutation: {
      upsertCharacter: (_root: unknown, args: { input: CharacterInput }) => {
        checked(upsertSchema, args);
        return store.upsertCharacter(args.input);
      },
    },
  };
}

function checked<T>(schema: z.ZodType<T>, args: unknown): T {
  const parsed = schema.safeParse(args);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  throw new GraphQLError(problems.join('; '), { extensions: { code: characterErrorCodes.badUserInput } });
}
