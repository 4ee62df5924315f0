import { GraphQLError } from 'graphql';
import mercurius, { type MercuriusCommonOptions } from 'mercurius';
import { CharacterNotFoundError, characterErrorCodes } from './errors';
import { requestErrorOf } from './request-errors';

type ErrorFormatter = NonNullable<MercuriusCommonOptions['errorFormatter']>;

/**
 * Callers see GraphQL's own errors (syntax, validation, variable coercion, limits), the refusals of a
 * request that is not a GraphQL request (with their 400, 413 or 415), and the service's domain errors.
 * Anything else (a database failure, a bug) becomes "Internal server error": its message, stack and SQL go
 * to the log only.
 */
export function maskInternalErrors(bodyLimitBytes: number): ErrorFormatter {
  return (execution, context) => {
    const log = context.reply?.log ?? context.app.log;
    const errors = execution.errors.map((error) => {
      const original = error.originalError;
      if (original === undefined || original instanceof GraphQLError || isMercuriusClientError(original))
        return error;
      const requestError = requestErrorOf(original, bodyLimitBytes);
      if (requestError) {
        // The formatter answers with the status of the single error's originalError.
        return new GraphQLError(requestError.message, {
          originalError: requestError,
          extensions: { code: requestError.code },
        });
      }
      if (original instanceof CharacterNotFoundError) {
        return new GraphQLError(original.message, {
          nodes: error.nodes,
          path: error.path,
          extensions: { code: original.code, id: original.characterId },
        });
      }
      log.error({ err: original, path: error.path }, 'characters resolver failed');
      return new GraphQLError('Internal server error', {
        nodes: error.nodes,
        path: error.path,
        extensions: { code: characterErrorCodes.internal },
      });
    });
    return mercurius.defaultErrorFormatter({ ...execution, errors }, context);
  };
}

// Mercurius' own refusals (validation, depth, CSRF, GET mutation) carry a 4xx status and name no internals.
function isMercuriusClientError(error: Error): boolean {
  const { code, statusCode } = error as { code?: unknown; statusCode?: unknown };
  return (
    typeof code === 'string' &&
    code.startsWith('MER_ERR_') &&
    (statusCode === undefined || Number(statusCode) < 500)
  );
}
