import { z } from 'zod';
import { cliqueTypes } from './character';

export const characterSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  isHero: z.boolean(),
  cliqueType: z.enum(cliqueTypes),
});

export const graphQLErrorSchema = z.object({
  message: z.string(),
  path: z.array(z.union([z.string(), z.number()])).optional(),
  extensions: z.object({ code: z.string().optional() }).loose().optional(),
});

/** A GraphQL-over-HTTP answer: `data` and/or `errors`. */
export const graphQLResponseSchema = z.object({
  data: z.unknown().optional(),
  errors: z.array(graphQLErrorSchema).optional(),
});

export const characterDataSchema = z.object({ character: characterSchema.nullable() });
export const charactersDataSchema = z.object({ characters: z.array(characterSchema).nullable() });
export const upsertCharacterDataSchema = z.object({ upsertCharacter: characterSchema });
