import type { FastifyInstance } from 'fastify';
import type { MercuriusCommonOptions } from 'mercurius';
import { graphQLResponseMediaType, responseMediaType } from './response-media-type';

type ErrorFormatter = NonNullable<MercuriusCommonOptions['errorFormatter']>;

/**
 * The status and body GraphQL over HTTP recommends for each media type, over what `format` answers:
 * - an error before execution (the request was refused, the document did not parse or validate, a variable
 *   did not coerce) has no `data` entry;
 * - a document that does not parse or validate, or a variable that does not coerce, answers 200 under
 *   application/json and 400 under application/graphql-response+json;
 * - refusals of the HTTP request itself (400 not a GraphQL request, 401, 405, 413, 415, CSRF) keep their status;
 * - an executed operation answers as `format` says (200, also when `data` is null).
 */
export function graphQLOverHttpStatus(format: ErrorFormatter): ErrorFormatter {
  return (execution, context) => {
    const formatted = format(execution, context);
    if (execution.data !== undefined) return formatted;
    const { errors } = formatted.response;
    if (!execution.errors.every(isDocumentError)) return { ...formatted, response: { errors } };
    const request = context.reply?.request;
    const statusCode = request && responseMediaType(request) === graphQLResponseMediaType ? 400 : 200;
    return { statusCode, response: { errors } };
  };
}

// Parsing, validation (the query limits included) and variable coercion raise GraphQL's own errors;
// Mercurius wraps those it finds before execution in MER_ERR_GQL_VALIDATION.
function isDocumentError(error: { originalError?: Error | null | undefined }): boolean {
  const original = error.originalError;
  return (
    original === undefined ||
    original === null ||
    (original as { code?: unknown }).code === 'MER_ERR_GQL_VALIDATION'
  );
}

/** Labels the GraphQL endpoint's answers with the media type the request accepted. */
export function labelResponseMediaType(app: FastifyInstance, path: string): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.routeOptions.url !== path) return payload;
    if (responseMediaType(request) === graphQLResponseMediaType) {
      reply.header('content-type', `${graphQLResponseMediaType}; charset=utf-8`);
    }
    return payload;
  });
}
