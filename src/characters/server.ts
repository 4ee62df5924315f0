import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { NoSchemaIntrospectionCustomRule, type ValidationRule } from 'graphql';
import mercurius from 'mercurius';
import type { Logger } from '../logger';
import { charactersPageMaxSize } from './character';
import { requireKeyForMutations } from './api-keys';
import { maskInternalErrors } from './error-masking';
import { graphQLOverHttpStatus, labelResponseMediaType } from './graphql-over-http';
import { queryLimitsRule } from './query-limits';
import { refuseMalformedGraphQLRequests } from './request-errors';
import { charactersResolvers } from './resolvers';
import { charactersSchema } from './schema';
import type { CharacterStore } from './store';
import { READINESS_PATH } from '../readiness';

export const charactersGraphQLPath = '/graphql';

/**
 * Limits every operation must stay within; the schema's deepest useful query has depth 2. A list costs what
 * its largest page may hold, so one query reads both cliques' pages in full and a third list is refused.
 */
export const charactersQueryLimits = {
  maxDepth: 6,
  maxCost: 1_000,
  listSize: charactersPageMaxSize,
  maxTokens: 2_000,
} as const;

/** The largest request body read; a GraphQL request within the query limits is far smaller. */
export const charactersBodyLimitBytes = 64 * 1024;

export interface CharactersServerOptions {
  store: CharacterStore;
  logger?: Logger;
  /** Production: no GraphiQL, no introspection. */
  production?: boolean;
  /** Keys that may run a mutation (`Authorization: Bearer`); undefined = mutations need none (development). */
  apiKeys?: readonly string[] | undefined;
}

/** The characters GraphQL service at POST /graphql; call `listen` on the result. */
export async function buildCharactersServer({
  store,
  logger,
  production = false,
  apiKeys,
}: CharactersServerOptions): Promise<FastifyInstance> {
  // pino's Logger is a FastifyBaseLogger; widening keeps the instance type the default one.
  const loggerInstance: FastifyBaseLogger | undefined = logger;
  const app = Fastify({ ...(loggerInstance ? { loggerInstance } : {}), bodyLimit: charactersBodyLimitBytes });
  const validationRules: ValidationRule[] = [queryLimitsRule(charactersQueryLimits)];
  if (production) validationRules.push(NoSchemaIntrospectionCustomRule);
  refuseMalformedGraphQLRequests(app, charactersGraphQLPath);
  labelResponseMediaType(app, charactersGraphQLPath);

  await app.register(mercurius, {
    schema: charactersSchema,
    resolvers: charactersResolvers(store),
    path: charactersGraphQLPath,
    graphiql: !production,
    validationRules,
    graphql: { parseOptions: { maxTokens: charactersQueryLimits.maxTokens } },
    errorFormatter: graphQLOverHttpStatus(maskInternalErrors(charactersBodyLimitBytes)),
    // Refuses requests a browser could send cross-site without a CORS preflight: a POST must be
    // application/json (or application/graphql; refuseMalformedGraphQLRequests answers 415 first), and
    // a GET must carry a custom header such as `mercurius-require-preflight`. Forms and text/plain
    // bodies cannot mutate characters.
    csrfPrevention: true,
    allowBatchedQueries: false,
  });
  if (apiKeys) requireKeyForMutations(app, apiKeys);
  app.get(READINESS_PATH, async () => ({ status: 'ok', store: store.kind }));
  return app;
}
