import type { FastifyInstance } from 'fastify';
import { Kind, OperationTypeNode } from 'graphql';
import { bearerKeyCheck } from '../auth/bearer-keys';
import { ConfigError, type Config } from '../config';
import { GraphQLRequestError } from './request-errors';

/**
 * The keys of CHARACTERS_API_KEYS; undefined outside production when unset (mutations need no key there).
 * In production a missing value stops the service and the worker at start-up.
 */
export function charactersApiKeys(
  config: Pick<Config, 'CHARACTERS_API_KEYS' | 'NODE_ENV'>,
): string[] | undefined {
  if (config.CHARACTERS_API_KEYS) return config.CHARACTERS_API_KEYS;
  if (config.NODE_ENV === 'production') {
    throw new ConfigError(
      'CHARACTERS_API_KEYS is required in production: the keys that may call upsertCharacter (comma-separated)',
    );
  }
  return undefined;
}

/**
 * Refuses a document with a mutation (401, before it runs) unless it comes with
 * `Authorization: Bearer <one of keys>`. Queries stay open: they change nothing.
 */
export function requireKeyForMutations(app: FastifyInstance, keys: readonly string[]): void {
  const isKnownKey = bearerKeyCheck(keys);
  app.graphql.addHook('preExecution', async (_schema, document, context) => {
    const mutates = document.definitions.some(
      (definition) =>
        definition.kind === Kind.OPERATION_DEFINITION && definition.operation === OperationTypeNode.MUTATION,
    );
    if (!mutates) return;
    if (isKnownKey(context.reply.request.headers.authorization)) return;
    throw new GraphQLRequestError(401, 'upsertCharacter needs a valid key: Authorization: Bearer <key>');
  });
}
