import { apiKeyHash, type ApiCaller } from '../api-callers';

/**
 * Finds the caller of an `Authorization: Bearer <key>` header. The key is hashed and the hash looked up: the
 * lookup's timing depends on the hash, which says nothing of how much of a key was right.
 */
export function callerLookup(
  callers: readonly ApiCaller[],
): (authorization?: string) => ApiCaller | undefined {
  const byHash = new Map(
    callers.flatMap((caller) => caller.keyHashes.map((hash) => [hash, caller] as const)),
  );
  return (authorization) => {
    const given = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1];
    return given ? byHash.get(apiKeyHash(given)) : undefined;
  };
}
