import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
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

export class UnknownCodecKeyError extends Error {
  override name = 'UnknownCodecKeyError';
}

const utf8 = new TextEncoder();
const text = (bytes: Uint8Array | null | undefined) =>
  bytes ? Buffer.from(bytes).toString('utf8') : undefined;

/**
 * AES-256-GCM over the whole serialized payload (data and metadata). The first key encrypts; every key
 * decrypts the payloads that name it. Payloads written before encryption decode as they are.
 */
export class EncryptionCodec implements PayloadCodec {
  private readonly keys: Map<string, Buffer>;
  private readonly encryptWith: CodecKey;

  constructor(keys: readonly CodecKey[]) {
    const [first] = keys;
    if (!first) throw new Error('EncryptionCodec needs at least one key');
    this.encryptWith = first;
    this.keys = new Map(keys.map((entry) => [entry.id, entry.key]));
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.encrypt(payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.decrypt(payload));
  }

  private encrypt(payload: Payload): Payload {
    const { id, key } = this.encryptWith;
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
