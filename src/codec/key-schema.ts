import { z } from 'zod';
import type { CodecKey } from './payload-encryption';

const keyIdPattern = /^[A-Za-z0-9._-]{1,64}$/;

/** `keyId:base64-of-32-bytes`, comma-separated; the first encrypts, all decrypt. Used by the config schema. */
export const codecKeysSchema = z.string().transform((value, context): CodecKey[] => {
  const keys: CodecKey[] = [];
  for (const item of value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const colon = item.indexOf(':');
    const id = colon > 0 ? item.slice(0, colon) : '';
    const key = Buffer.from(item.slice(colon + 1), 'base64');
    let problem: string | undefined;
    if (!keyIdPattern.test(id))
      problem = 'each key is keyId:base64 with a key id of letters, digits, ".", "_" or "-"';
    else if (key.length !== 32) problem = `key "${id}" must be 32 bytes in base64 (openssl rand -base64 32)`;
    else if (keys.some((known) => known.id === id)) problem = `key id "${id}" is given twice`;
    if (problem) {
      context.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }
    keys.push({ id, key });
  }
  if (keys.length === 0) {
    context.addIssue({ code: 'custom', message: 'at least one keyId:base64 key' });
    return z.NEVER;
  }
  return keys;
});
