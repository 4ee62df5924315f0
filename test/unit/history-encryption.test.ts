import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EncryptionCodec } from '../../src/codec/payload-encryption';
import {
  decodedHistoryText,
  encodingOf,
  historyPayloads,
  rawHistoryWithoutSearchAttributes,
} from '../helpers/history-payloads';
import { historyFromJson } from '../helpers/history-json';
import { TEST_CODEC_KEY } from '../helpers/temporal';

/**
 * A lifecycle recorded by `npm run histories:record` (test/histories/record/, payloads encrypted with the test
 * key as the service encrypts them): authorized 173.19 USD for order order-da3d883c, captured 61.37. The replay
 * suite replays it.
 */
const history = historyFromJson(
  JSON.parse(
    readFileSync(join(__dirname, '..', 'histories', 'authorization-lifecycle-encrypted.json'), 'utf8'),
  ),
);
const secrets = ['173.19', '61.37', 'order-da3d883c'];

describe('a recorded encrypted history', () => {
  it('holds no plaintext amount or order id outside the search attributes', () => {
    const stored = rawHistoryWithoutSearchAttributes(history);
    for (const secret of secrets) expect(stored.includes(secret)).toBe(false);
  });

  it('holds them encrypted: the test key decrypts them, another key cannot', async () => {
    const text = await decodedHistoryText(history, new EncryptionCodec([TEST_CODEC_KEY]));
    for (const secret of secrets) expect(text).toContain(secret);
    const otherKey = { id: TEST_CODEC_KEY.id, key: Buffer.alloc(32, 7) };
    await expect(decodedHistoryText(history, new EncryptionCodec([otherKey]))).rejects.toThrow();
  });

  it('encrypts every payload but search attributes and the markers’ bookkeeping', () => {
    // Written by the SDK's core, never through the codec: which activity, attempt, when; which patch. Not user
    // data. A local activity's result is user data.
    const markerBookkeeping = (history.events ?? []).flatMap((event) =>
      Object.entries(event.markerRecordedEventAttributes?.details ?? {}).flatMap(([name, payloads]) =>
        name === 'result' ? [] : (payloads.payloads ?? []),
      ),
    );
    // The start's and every upsert's.
    const searchAttributes = (history.events ?? []).flatMap((event) =>
      Object.values({
        ...event.workflowExecutionStartedEventAttributes?.searchAttributes?.indexedFields,
        ...event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields,
      }),
    );
    const exempt = new Set([...markerBookkeeping, ...searchAttributes]);
    const userPayloads = historyPayloads(history).filter((payload) => !exempt.has(payload));
    expect(userPayloads.length).toBeGreaterThan(5);
    expect(new Set(userPayloads.map(encodingOf))).toEqual(new Set(['binary/encrypted']));
  });
});
