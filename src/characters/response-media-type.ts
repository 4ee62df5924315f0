import type { FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';

/** The media type GraphQL over HTTP defines for its answers; application/json stays for older clients. */
export const graphQLResponseMediaType = 'application/graphql-response+json';

export type ResponseMediaType = typeof graphQLResponseMediaType | 'application/json';

// application/json first: an Accept of */* gets it, as the specification recommends.
const offered: ResponseMediaType[] = ['application/json', graphQLResponseMediaType];

/**
 * The media type of the answer to a GraphQL request, from its Accept header (q-values honoured). Without an
 * Accept header, or accepting neither type, the answer is application/json.
 */
export function responseMediaType(request: FastifyRequest): ResponseMediaType {
  if (!request.headers.accept) return 'application/json';
  const chosen = new Negotiator(request.raw).mediaType(offered);
  return chosen === graphQLResponseMediaType ? graphQLResponseMediaType : 'application/json';
}
