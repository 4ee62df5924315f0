import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors';

/** Compares in constant time, so the answer's timing does not reveal how much of a key was right. */
export function sameKey(given: string, known: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(known);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A preHandler that admits only `Authorization: Bearer <one of the configured API keys>`. */
export function requireApiKey(keys: readonly string[]) {
  return async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer (.+)$/i.exec(header);
    if (!match?.[1] || !keys.some((key) => sameKey(match[1] as string, key))) {
      throw new ApiError('UNAUTHORIZED', 'a valid API key is required: Authorization: Bearer <key>');
    }
  };
}
