import { timingSafeEqual } from 'node:crypto';

/**
 * Whether an Authorization header is `Bearer <one of keys>`. The keys' bytes are made once; each comparison
 * takes constant time, so the answer's timing does not reveal how much of a key was right.
 */
export function bearerKeyCheck(keys: readonly string[]): (authorization: string | undefined) => boolean {
  const known = keys.map((key) => Buffer.from(key));
  return (authorization) => {
    const given = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1];
    if (!given) return false;
    const bytes = Buffer.from(given);
    return known.some((key) => key.length === bytes.length && timingSafeEqual(key, bytes));
  };
}
