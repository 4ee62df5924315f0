import { createHash } from 'node:crypto';
import { z } from 'zod';

// The callers of the HTTP API as configuration holds them (API_CALLERS, API_KEYS); src/auth finds them by key.

/**
 * What a caller of the HTTP API may do (docs/security.md has the table of routes):
 * - `lifecycles:read`: read its lifecycles' state;
 * - `lifecycles:write`: start lifecycles and move money on its own (capture, void, reauthorize, refund);
 * - `codec`: decrypt and encrypt payloads at /codec (operators and the Web UI);
 * - `admin`: see and act on every lifecycle, other callers' and those without an owner (still with the read or
 *   write scope the operation needs).
 */
export const callerScopes = ['lifecycles:read', 'lifecycles:write', 'codec', 'admin'] as const;
export type CallerScope = (typeof callerScopes)[number];

/** A caller of the API: its id (the owner of the lifecycles it starts), its scopes and its keys' hashes. */
export type ApiCaller = {
  id: string;
  scopes: readonly CallerScope[];
  /** SHA-256 of each key, lower-case hex: at most two, so a key can be rotated without a gap. */
  keyHashes: readonly string[];
};

/** The caller that API_KEYS' keys (in the clear) name: development's, with every scope. */
export const CLEAR_KEY_CALLER_ID = 'dev';

/** SHA-256 of an API key as lower-case hex: the form API_CALLERS holds keys in. */
export function apiKeyHash(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The one caller of keys given in the clear (API_KEYS): every scope. */
export function clearKeyCaller(keys: readonly string[]): ApiCaller {
  return { id: CLEAR_KEY_CALLER_ID, scopes: [...callerScopes], keyHashes: keys.map(apiKeyHash) };
}

const callerId = /^[a-z0-9][a-z0-9._-]{0,62}$/;
const sha256Hex = /^[0-9a-f]{64}$/;

/**
 * Parses API_CALLERS: callers separated by `;`, each `id:scope+scope:hash[,hash]`, e.g.
 * `orders:lifecycles:write+lifecycles:read:<sha256>,<sha256>;ops:codec:<sha256>`. The id ends at the first
 * `:`, the hashes start after the last; scopes (which contain `:`) are between. Throws a message naming the
 * part that is wrong.
 */
export function parseApiCallers(value: string): ApiCaller[] {
  const entries = value
    .split(';')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new Error('at least one caller: id:scope+scope:sha256[,sha256]');
  const callers = entries.map((entry) => {
    const first = entry.indexOf(':');
    const last = entry.lastIndexOf(':');
    if (first <= 0 || last === first) throw new Error(`"${entry}" is not id:scope+scope:sha256[,sha256]`);
    const id = entry.slice(0, first);
    if (!callerId.test(id)) throw new Error(`caller id "${id}": lower-case letters, digits, ".", "_", "-"`);
    const scopes = entry
      .slice(first + 1, last)
      .split('+')
      .map((scope) => scope.trim());
    for (const scope of scopes) {
      if (!(callerScopes as readonly string[]).includes(scope))
        throw new Error(`caller ${id}: unknown scope "${scope}" (one of ${callerScopes.join(', ')})`);
    }
    const keyHashes = entry
      .slice(last + 1)
      .split(',')
      .map((hash) => hash.trim().toLowerCase());
    if (keyHashes.length > 2 || !keyHashes.every((hash) => sha256Hex.test(hash)))
      throw new Error(`caller ${id}: one or two key hashes, each SHA-256 as 64 hex digits`);
    return { id, scopes: [...new Set(scopes)] as CallerScope[], keyHashes };
  });
  const ids = callers.map((caller) => caller.id);
  const duplicateId = ids.find((id, index) => ids.indexOf(id) !== index);
  if (duplicateId) throw new Error(`caller ${duplicateId} is listed twice`);
  const hashes = callers.flatMap((caller) => caller.keyHashes);
  if (new Set(hashes).size !== hashes.length) throw new Error('a key hash is listed twice');
  return callers;
}

/** API_CALLERS as a schema: the parser's message names what is wrong. */
export const apiCallersSchema = z.string().transform((value, context) => {
  try {
    return parseApiCallers(value);
  } catch (error) {
    context.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});
