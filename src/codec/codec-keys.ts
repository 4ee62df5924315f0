import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { codecKeysSchema } from './key-schema';
import type { CodecKey } from './payload-encryption';

/** What the codec needs of the configuration (src/config/ parses it; the codec does not depend on it). */
export interface CodecSettings {
  NODE_ENV: string;
  PAYLOAD_CODEC_KEYS?: CodecKey[];
}

/** Where the local stack keeps its generated key when PAYLOAD_CODEC_KEYS is not set (git-ignored). */
export const DEV_KEY_FILE = '.data/payload-codec-dev-key';

/**
 * A generated development key kept in `file`, written once and atomically (a hard link to a complete
 * file): a process that loses the race reads the winner's key.
 */
export function codecKeysFromFile(file: string, keyId = 'dev'): CodecKey[] {
  mkdirSync(dirname(file), { recursive: true });
  const draft = `${file}.${process.pid}.tmp`;
  writeFileSync(draft, `${keyId}:${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  try {
    linkSync(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(draft);
  }
  const parsed = codecKeysSchema.safeParse(readFileSync(file, 'utf8').trim());
  if (!parsed.success) throw new Error(`${file} holds no valid key; delete it to generate a new one`);
  return parsed.data;
}

/**
 * The payload keys: PAYLOAD_CODEC_KEYS, or outside production a generated development key kept in
 * .data/ so that every process of the local stack (and its restarts) shares it.
 */
export function codecKeysFromConfig(config: CodecSettings, devKeyFile = DEV_KEY_FILE): CodecKey[] {
  if (config.PAYLOAD_CODEC_KEYS) return config.PAYLOAD_CODEC_KEYS;
  if (config.NODE_ENV === 'production') {
    throw new Error(
      'Invalid configuration:\n  PAYLOAD_CODEC_KEYS: required when NODE_ENV=production (keyId:base64-32-byte-key, comma-separated)',
    );
  }
  return codecKeysFromFile(devKeyFile);
}
