import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { NoSchemaIntrospectionCustomRule, type ValidationRule } from 'graphql';
import mercurius from 'mercurius';
import type { Logger } from '../logger';
import { maskInternalErrors } from './error-masking';
import { queryLimitsRule } from './query-limits';
import { refuseMalformedGraphQLRequests } from './request-errors';
import { charactersResolvers } from './resolvers';
import { charactersSchema } from './schema';
import type { CharacterStore } from './store';

export const charactersGraphQLPath = '/graphql';

/** Limits every operation must stay within; the schema's deepest useful query has depth 2. */
export const charactersQueryLimits = { maxDepth: 6, maxCost: 500, listSize: 10, maxTokens: 2_000 } as const;

/** The largest request body read; a GraphQL request within the query limits is far smaller. */
export const charactersBodyLimitBytes = 64 * 1024;

export interface CharactersServerOptions {
  store: CharacterStore;
  logger?: Logger;
  /** Production: no GraphiQL, no introspection. */
  production?: boolean;
}

/** The characters GraphQL service at POST /graphql; call `listen` on the result. */
export async function buildCharactersServer({
  store,
  logger,
  production = false,
}: CharactersServerOptions): Promise<FastifyInstance> {
  // pino's Logger is a FastifyBaseLogger; widening keeps the instance type the default one.
  const loggerInstance: FastifyBaseLogger | undefined = logger;
  const app = Fastify({ ...(loggerInstance ? { loggerInstance } : {}), bodyLimit: charactersBodyLimitBytes });
  const validationRules: ValidationRule[] = [queryLimitsRule(charactersQueryLimits)];
  if (production) validationRules.push(NoSchemaIntrospectionCustomRule);
  refuseMalformedGraphQLRequests(app, charactersGraphQLPath);

  await app.register(mercurius, {
    schema: charactersSchema,
    resolvers: charactersResolvers(store),
    path: charactersGraphQLPath,
    graphiql: !production,
    validationRules,
    graphql: { parseOptions: { maxTokens: charactersQueryLimits.maxTokens } },
    errorFormatter: maskInternalErrors(charactersBodyLimitBytes),
    // Refuses requests a browser could send cross-site without a CORS preflight: a POST must be
    // application/json (or application/graphql; refuseMalformedGraphQLRequests answers 415 first), and
    // a GET must carry a custom header such as `mercurius-require-preflight`. Forms and text/plain
    // bodies cannot mutate characters.
    csrfPrevention: true,
    allowBatchedQueries: false,
  });
  app.get('/healthz', async () => ({ status: 'ok', store: store.kind }));
  return app;
}
