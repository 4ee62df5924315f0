import type { FastifyRequest } from 'fastify';
import type { ApiCaller, CallerScope } from '../api-callers';
import { callerLookup } from '../auth/callers';
import { ApiError } from './errors';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who called, set by identifyCaller from the request's API key. */
    caller?: ApiCaller;
  }
}

/** A request hook that admits only `Authorization: Bearer <a configured caller's key>` and notes the caller. */
export function identifyCaller(callers: readonly ApiCaller[]) {
  const find = callerLookup(callers);
  return async (request: FastifyRequest): Promise<void> => {
    const caller = find(request.headers.authorization);
    if (!caller) {
      throw new ApiError('UNAUTHORIZED', 'a valid API key is required: Authorization: Bearer <key>');
    }
    request.caller = caller;
  };
}

/** A request hook, after identifyCaller, that admits only a caller with `scope`. */
export function requireScope(scope: CallerScope) {
  return async (request: FastifyRequest): Promise<void> => {
    if (!request.caller?.scopes.includes(scope)) {
      throw new ApiError(
        'FORBIDDEN',
        `the caller ${request.caller?.id ?? '(none)'} lacks the scope ${scope} this route needs`,
      );
    }
  };
}

/** The caller identifyCaller noted: the routes that use it run after it. */
export function callerOf(request: FastifyRequest): ApiCaller {
  if (!request.caller) throw new Error('no caller: identifyCaller did not run for this route');
  return request.caller;
}
