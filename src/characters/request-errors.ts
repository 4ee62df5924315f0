import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { characterErrorCodes } from './errors';

/**
 * A request refused before any GraphQL ran (GraphQL over HTTP): not JSON, not a GraphQL request, too large,
 * a mutation without a valid key.
 * `statusCode` is the HTTP status the error formatter answers with.
 */
export class GraphQLRequestError extends Error {
  override name = 'GraphQLRequestError';

  constructor(
    readonly statusCode: 400 | 401 | 413 | 415,
    message: string,
  ) {
    super(message);
  }

  get code(): string {
    if (this.statusCode === 401) return characterErrorCodes.unauthorized;
    if (this.statusCode === 413) return characterErrorCodes.payloadTooLarge;
    if (this.statusCode === 415) return characterErrorCodes.unsupportedMediaType;
    return characterErrorCodes.badRequest;
  }
}

const acceptedMediaTypes = ['application/json', 'application/graphql'];

// The request parameters of GraphQL over HTTP; members it does not define are left alone.
const graphQLRequestSchema = z.looseObject({
  query: z.string(),
  operationName: z.string().nullish(),
  variables: z.record(z.string(), z.unknown()).nullish(),
  extensions: z.record(z.string(), z.unknown()).nullish(),
});

/**
 * Checks every POST to the GraphQL path before Mercurius sees it: the media type first (before the body is
 * read), then the shape of the parsed body (before Fastify's schema coerces `{"query": 1}` into "1").
 */
export function refuseMalformedGraphQLRequests(app: FastifyInstance, path: string): void {
  const isGraphQLPost = (request: FastifyRequest) =>
    request.method === 'POST' && request.routeOptions.url === path;

  app.addHook('onRequest', async (request) => {
    if (!isGraphQLPost(request)) return;
    const sent = request.headers['content-type'];
    const mediaType = sent?.split(';')[0]?.trim().toLowerCase();
    if (mediaType && acceptedMediaTypes.includes(mediaType)) return;
    const what = sent ? `a body of type ${JSON.stringify(sent)}` : 'a body without a Content-Type';
    throw new GraphQLRequestError(
      415,
      `${what} is not accepted: send application/json (or application/graphql)`,
    );
  });

  app.addHook('preValidation', async (request) => {
    if (!isGraphQLPost(request)) return;
    const parsed = graphQLRequestSchema.safeParse(request.body);
    if (parsed.success) {
      // A null `extensions` means none (GraphQL over HTTP); Mercurius' body schema admits only an object.
      if (parsed.data.extensions === null) delete (request.body as { extensions?: unknown }).extensions;
      return;
    }
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'body'}: ${issue.message}`,
    );
    throw new GraphQLRequestError(400, problems.join('; '));
  });
}

/**
 * The request error behind what Fastify raised while reading a body, with a message that says what to
 * change; undefined for anything else.
 */
export function requestErrorOf(error: Error, bodyLimitBytes: number): GraphQLRequestError | undefined {
  if (error instanceof GraphQLRequestError) return error;
  const { code, statusCode } = error as { code?: unknown; statusCode?: unknown };
  if (typeof code !== 'string' || !code.startsWith('FST_ERR_')) return undefined;
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new GraphQLRequestError(413, `the body is larger than the limit of ${bodyLimitBytes} bytes`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new GraphQLRequestError(415, 'this media type is not accepted: send application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new GraphQLRequestError(400, 'the body is empty: send a JSON object such as {"query": "{ … }"}');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new GraphQLRequestError(400, 'the body is not well-formed JSON');
  }
  // Other refusals of a body (a wrong Content-Length, a forbidden __proto__ key) keep Fastify's words.
  return typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500
    ? new GraphQLRequestError(400, error.message)
    : undefined;
}
