import { randomBytes } from 'node:crypto';
import { encryptingDataConverter } from '../src/codec/data-converter';
import { EncryptionCodec } from '../src/codec/payload-encryption';

/** One fresh key per run: the bench's clients and the worker process it starts encrypt as the service does. */
export function benchEncryption() {
  const key = { id: 'bench', key: randomBytes(32) };
  return {
    dataConverter: encryptingDataConverter(new EncryptionCodec([key])),
    // The bench's Nexus caller in `orders` holds the same key, as its endpoint key.
    env: {
      PAYLOAD_CODEC_KEYS: `${key.id}:${key.key.toString('base64')}`,
      NEXUS_ENDPOINT_KEYS: `orders=${key.id}:${key.key.toString('base64')}`,
    },
  };
}
