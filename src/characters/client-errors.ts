import { characterErrorCodes } from './errors';

/** Every failure of the characters client; `retryable` tells whether the same call may succeed later. */
export abstract class CharactersClientError extends Error {
  abstract readonly retryable: boolean;
}

export interface GraphQLErrorDetail {
  message: string;
  path?: (string | number)[] | undefined;
  code?: string | undefined;
}

/**
 * The service answered with GraphQL errors: the request was invalid (validation, unknown enum value, missing
 * field), named an unknown character, or failed inside the service. Only the last may succeed when retried.
 */
export class CharactersGraphQLError extends CharactersClientError {
  override name = 'CharactersGraphQLError';
  readonly retryable: boolean;
  /** Path of the first error, e.g. ['upsertCharacter']; undefined for errors found before execution. */
  readonly path: (string | number)[] | undefined;
  /** `extensions.code` of the first error, e.g. CHARACTER_NOT_FOUND or INTERNAL_SERVER_ERROR. */
  readonly code: string | undefined;

  constructor(
    readonly errors: GraphQLErrorDetail[],
    readonly status: number,
  ) {
    super(errors.map((error) => error.message).join('; ') || `GraphQL request failed with HTTP ${status}`);
    this.path = errors[0]?.path;
    this.code = errors[0]?.code;
    this.retryable = errors.some((error) => error.code === characterErrorCodes.internal) || status >= 500;
  }

  get notFound(): boolean {
    return this.code === characterErrorCodes.notFound;
  }
}

/** The request did not get a GraphQL answer: connection refused or reset, timeout, 429 or 5xx without a body. */
export class CharactersTransportError extends CharactersClientError {
  override name = 'CharactersTransportError';
  readonly retryable = true;

  constructor(
    message: string,
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The service answered, but not in the shape the characters schema promises; retrying would not change that. */
export class CharactersResponseError extends CharactersClientError {
  override name = 'CharactersResponseError';
  readonly retryable = false;

  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}
