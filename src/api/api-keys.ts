import type { FastifyRequest } from 'fastify';
import { bearerKeyCheck } from '../auth/bearer-keys';
import { ApiError } from './errors';

/** A request hook that admits only `Authorization: Bearer <one of the configured API keys>`. */
export function requireApiKey(keys: readonly string[]) {
  const isKnownKey = bearerKeyCheck(keys);
  return async (request: FastifyRequest): Promise<void> => {
    if (!isKnownKey(request.headers.authorization)) {
      throw new ApiError('UNAUTHORIZED', 'a valid API key is required: Authorization: Bearer <key>');
    }
  };
}
