import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec, SerializationContext } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

/** The encoding of an encrypted payload; a payload with any other encoding is passed through unchanged. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** Metadata naming the key that encrypted the payload, so rotated keys still decrypt old payloads. */
export const KEY_ID_METADATA = 'encryption-key-id';

const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface CodecKey {
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

export interface EncryptionCodecOptions {
  /** Keys that decrypt too (e.g. Nexus endpoint keys) without encrypting by default. */
  decryptAlso?: readonly CodecKey[];
  /** The key for payloads of this context instead of the first key; undefined for the first key. */
  encryptFor?: (context: SerializationContext | undefined) => CodecKey | undefined;
}

export class UnknownCodecKeyError extends Error {
  override name = 'UnknownCodecKeyError';
}

const utf8 = new TextEncoder();
const text = (bytes: Uint8Array | null | undefined) =>
  bytes ? Buffer.from(bytes).toString('utf8') : undefined;

/**
 * AES-256-GCM over the whole serialized payload (data and metadata). The first key encrypts (unless
 * `encryptFor` picks another for the payload's context); every key decrypts the payloads that name it.
 * Payloads written before encryption decode as they are.
 */
export class EncryptionCodec implements PayloadCodec {
  private readonly keys: Map<string, Buffer>;
  private readonly encryptWith: CodecKey;
  private readonly encryptFor: EncryptionCodecOptions['encryptFor'];

  constructor(keys: readonly CodecKey[], options: EncryptionCodecOptions = {}) {
    const [first] = keys;
    if (!first) throw new Error('EncryptionCodec needs at least one key');
    this.encryptWith = first;
    this.encryptFor = options.encryptFor;
    this.keys = new Map();
    for (const entry of [...keys, ...(options.decryptAlso ?? [])]) {
      const known = this.keys.get(entry.id);
      if (known && !known.equals(entry.key)) throw new Error(`key id "${entry.id}" names two different keys`);
      this.keys.set(entry.id, entry.key);
    }
  }

  async encode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    const key = this.encryptFor?.(context) ?? this.encryptWith;
    return payloads.map((payload) => this.encrypt(payload, key));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.decrypt(payload));
  }

  private encrypt(payload: Payload, { id, key }: CodecKey): Payload {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(CIPHER, key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(utf8.encode(id));
    const plain = temporal.api.common.v1.Payload.encode(payload).finish();
    const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: { encoding: utf8.encode(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: utf8.encode(id) },
      data: sealed,
    };
  }

  private decrypt(payload: Payload): Payload {
    if (text(payload.metadata?.encoding) !== ENCRYPTED_ENCODING) return payload;
    const id = text(payload.metadata?.[KEY_ID_METADATA]) ?? '';
    const key = this.keys.get(id);
    if (!key) {
      throw new UnknownCodecKeyError(
        `payload encrypted with key "${id}", which is not in PAYLOAD_CODEC_KEYS`,
      );
    }
    const sealed = Buffer.from(payload.data ?? new Uint8Array());
    if (sealed.length < IV_BYTES + TAG_BYTES) {
      throw new Error(
        `encrypted payload of ${sealed.length} bytes is shorter than its IV and tag (${IV_BYTES + TAG_BYTES} bytes)`,
      );
    }
    const decipher = createDecipheriv(CIPHER, key, sealed.subarray(0, IV_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(utf8.encode(id));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    const plain = Buffer.concat([
      decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)),
      decipher.final(),
    ]);
    return temporal.api.common.v1.Payload.decode(plain);
  }
}
