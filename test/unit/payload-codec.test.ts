import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { codecKeysFromConfig } from '../../src/codec/codec-keys';
import {
  ENCRYPTED_ENCODING,
  EncryptionCodec,
  KEY_ID_METADATA,
  UnknownCodecKeyError,
} from '../../src/codec/payload-encryption';
import { ConfigError, loadConfig } from '../../src/config';

const key = (id: string) => ({ id, key: randomBytes(32) });
const text = (bytes?: Uint8Array | null) => Buffer.from(bytes ?? []).toString('utf8');
const capture = { orderId: 'order-7731', amount: { currency_code: 'USD', value: '61.37' } };

describe('EncryptionCodec', () => {
  it('encrypts a payload so that neither its data nor its metadata can be read, and decrypts it back', async () => {
    const codec = new EncryptionCodec([key('k1')]);
    const plain = defaultPayloadConverter.toPayload(capture);
    const [encrypted] = await codec.encode([plain]);
    expect(text(encrypted?.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(text(encrypted?.metadata?.[KEY_ID_METADATA])).toBe('k1');
    expect(Buffer.from(encrypted?.data ?? []).includes('61.37')).toBe(false);
    expect(Buffer.from(encrypted?.data ?? []).includes('json/plain')).toBe(false);
    const [decrypted] = await codec.decode([encrypted as Payload]);
    expect(defaultPayloadConverter.fromPayload(decrypted as Payload)).toEqual(capture);
  });

  it('uses a fresh IV per payload', async () => {
    const codec = new EncryptionCodec([key('k1')]);
    const plain = defaultPayloadConverter.toPayload(capture);
    const [a, b] = await codec.encode([plain, plain]);
    expect(Buffer.from(a?.data ?? []).equals(Buffer.from(b?.data ?? []))).toBe(false);
  });

  it('rotates: the new first key encrypts, the old key still decrypts what it wrote', async () => {
    const old = key('2026-01');
    const next = key('2026-06');
    const [written] = await new EncryptionCodec([old]).encode([defaultPayloadConverter.toPayload(capture)]);
    const rotated = new EncryptionCodec([next, old]);
    const [decoded] = await rotated.decode([written as Payload]);
    expect(defaultPayloadConverter.fromPayload(decoded as Payload)).toEqual(capture);
    const [fresh] = await rotated.encode([defaultPayloadConverter.toPayload(capture)]);
    expect(text(fresh?.metadata?.[KEY_ID_METADATA])).toBe('2026-06');
  });

  it('passes payloads written before encryption through unchanged (old histories replay)', async () => {
    const plain = defaultPayloadConverter.toPayload(capture);
    const [decoded] = await new EncryptionCodec([key('k1')]).decode([plain]);
    expect(decoded).toBe(plain);
  });

  it('refuses a payload of an unknown key and one that was tampered with', async () => {
    const [written] = await new EncryptionCodec([key('gone')]).encode([defaultPayloadConverter.toPayload(1)]);
    await expect(new EncryptionCodec([key('k1')]).decode([written as Payload])).rejects.toThrow(
      UnknownCodecKeyError,
    );
    const k1 = key('k1');
    const [sealed] = await new EncryptionCodec([k1]).encode([defaultPayloadConverter.toPayload(1)]);
    const data = Buffer.from(sealed?.data ?? []);
    data[20] = (data[20] ?? 0) ^ 1;
    await expect(new EncryptionCodec([k1]).decode([{ ...sealed, data }])).rejects.toThrow();
  });

  it('names the payload’s key but never the configured ones when the key is unknown', async () => {
    const [written] = await new EncryptionCodec([key('gone')]).encode([defaultPayloadConverter.toPayload(1)]);
    const refusal = new EncryptionCodec([key('secret-2026-06'), key('secret-2026-01')]).decode([
      written as Payload,
    ]);
    await expect(refusal).rejects.toThrow(/key "gone"/);
    await expect(refusal).rejects.not.toThrow(/secret-2026/);
  });

  it('refuses a ciphertext too short to hold its IV and a 16-byte tag (no shortened tags)', async () => {
    const codec = new EncryptionCodec([key('k1')]);
    const [sealed] = await codec.encode([defaultPayloadConverter.toPayload(1)]);
    const whole = Buffer.from(sealed?.data ?? []);
    // 16 bytes would read as a 12-byte IV and a 4-byte tag, which Node accepts unless the tag length is pinned.
    for (const length of [0, 12, 16, 27]) {
      await expect(codec.decode([{ ...sealed, data: whole.subarray(0, length) }])).rejects.toThrow(
        /shorter than its IV and tag \(28 bytes\)/,
      );
    }
  });
});

describe('PAYLOAD_CODEC_KEYS', () => {
  const base64Key = () => randomBytes(32).toString('base64');

  it('parses keyId:base64 pairs, the first one encrypting', () => {
    const keys = loadConfig({
      PAYLOAD_CODEC_KEYS: `new:${base64Key()}, old:${base64Key()}`,
    }).PAYLOAD_CODEC_KEYS;
    expect(keys?.map((entry) => entry.id)).toEqual(['new', 'old']);
    expect(keys?.[0]?.key).toHaveLength(32);
  });

  it('names the variable for a malformed value', () => {
    expect(() => loadConfig({ PAYLOAD_CODEC_KEYS: 'nokey' })).toThrow(
      /PAYLOAD_CODEC_KEYS: each key is keyId:base64/,
    );
    expect(() => loadConfig({ PAYLOAD_CODEC_KEYS: `k:${randomBytes(16).toString('base64')}` })).toThrow(
      /PAYLOAD_CODEC_KEYS: key "k" must be 32 bytes/,
    );
    expect(() => loadConfig({ PAYLOAD_CODEC_KEYS: `k:${base64Key()},k:${base64Key()}` })).toThrow(
      /PAYLOAD_CODEC_KEYS: key id "k" is given twice/,
    );
  });

  it('without keys: production refuses to start, development generates one key under .data and keeps it', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/PAYLOAD_CODEC_KEYS: required/);
    expect(() => codecKeysFromConfig({ NODE_ENV: 'production' })).toThrow(/PAYLOAD_CODEC_KEYS: required/);
    const file = join(mkdtempSync(join(tmpdir(), 'codec-')), '.data', 'dev-key');
    const first = codecKeysFromConfig(loadConfig({ NODE_ENV: 'development' }), file);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toMatch(/^dev:/);
    const again = codecKeysFromConfig(loadConfig({ NODE_ENV: 'development' }), file);
    expect(again[0]?.key.equals(first[0]?.key as Buffer)).toBe(true);
  });
});
