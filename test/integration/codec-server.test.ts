import { clearKeyCaller } from '../../src/api-callers';
import { connect } from 'node:net';
import axios from 'axios';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { buildApi } from '../../src/api/server';
import { LifecycleClient } from '../../src/client/lifecycle-client';
import { EncryptionCodec } from '../../src/codec/payload-encryption';
import { connectClient, TEST_CODEC_KEY } from '../helpers/temporal';

const API_KEY = 'codec-test-key';
const UI_ORIGIN = 'http://localhost:8233';
const codec = new EncryptionCodec([TEST_CODEC_KEY]);

async function startApi(loopbackUiWithoutKey: boolean) {
  const { client, close } = await connectClient();
  const app = await buildApi({
    lifecycles: new LifecycleClient(client, 'codec-test'),
    callers: [clearKeyCaller([API_KEY])],
    defaults: { reauthorizeAfter: '3 days', expiryPolicy: 'void', lateEventWindow: '3 days' },
    logger: false,
    codec: { codec, corsOrigins: [UI_ORIGIN], loopbackUiWithoutKey },
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const http = axios.create({ baseURL: url, validateStatus: () => true });
  return { url, http, close: async () => (await app.close(), await close()) };
}

type Api = Awaited<ReturnType<typeof startApi>>;
let dev: Api;
let production: Api;
beforeAll(async () => {
  [dev, production] = await Promise.all([startApi(true), startApi(false)]);
});
afterAll(async () => {
  await Promise.all([dev?.close(), production?.close()]);
});

/** A payload in the codec server protocol's JSON: base64 metadata values and data. */
function json(payload: Payload) {
  const base64 = (bytes?: Uint8Array | null) => Buffer.from(bytes ?? []).toString('base64');
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, bytes]) => [key, base64(bytes)]),
    ),
    data: base64(payload.data),
  };
}
const payloadJson = (value: unknown) => json(defaultPayloadConverter.toPayload(value));
async function sealedJson(value: unknown, with_ = codec) {
  const [sealed] = await with_.encode([defaultPayloadConverter.toPayload(value)]);
  return json(sealed as Payload);
}
const bearer = { authorization: `Bearer ${API_KEY}` };
const capture = { amount: { currency_code: 'USD', value: '61.37' } };

describe('codec server', () => {
  it('encodes and decodes payloads in the protocol’s JSON with the API key', async () => {
    const encoded = await dev.http.post(
      '/codec/encode',
      { payloads: [payloadJson(capture)] },
      { headers: bearer },
    );
    expect(encoded.status).toBe(200);
    const [sealed] = encoded.data.payloads;
    expect(Buffer.from(sealed.metadata.encoding, 'base64').toString()).toBe('binary/encrypted');
    expect(Buffer.from(sealed.data, 'base64').includes('61.37')).toBe(false);

    const decoded = await dev.http.post(
      '/codec/decode',
      { payloads: [sealed, payloadJson('plain')] },
      { headers: bearer },
    );
    expect(decoded.status).toBe(200);
    expect(decoded.data.payloads[1]).toEqual(payloadJson('plain'));
    expect(JSON.parse(Buffer.from(decoded.data.payloads[0].data, 'base64').toString())).toEqual(capture);
  });

  it('takes `{}` as no payloads, as protobuf JSON writes an empty list (the CLI sends it)', async () => {
    const empty = await dev.http.post('/codec/decode', {}, { headers: bearer });
    expect(empty.status).toBe(200);
    expect(empty.data).toEqual({ payloads: [] });
  });

  it('answers the UI’s CORS preflight and lets the UI’s browser on this machine decode without a key in development', async () => {
    const preflight = await dev.http.options('/codec/decode', {
      headers: {
        origin: UI_ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-namespace',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(UI_ORIGIN);
    expect(preflight.headers['access-control-allow-headers']).toMatch(/X-Namespace/i);

    const body = { payloads: [await sealedJson(capture)] };
    const fromUi = await dev.http.post('/codec/decode', body, {
      headers: { origin: UI_ORIGIN, 'x-namespace': 'default' },
    });
    expect(fromUi.status).toBe(200);
    expect(fromUi.headers['access-control-allow-origin']).toBe(UI_ORIGIN);
  });

  it('refuses a request without a key from elsewhere, and every keyless request in production mode', async () => {
    const body = { payloads: [payloadJson(capture)] };
    const elsewhere = await dev.http.post('/codec/decode', body, {
      headers: { origin: 'http://evil.example' },
    });
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers['access-control-allow-origin']).toBeUndefined();
    expect((await dev.http.post('/codec/decode', body)).status).toBe(401);
    const wrongKey = await dev.http.post('/codec/decode', body, {
      headers: { origin: UI_ORIGIN, authorization: 'Bearer nope' },
    });
    expect(wrongKey.status).toBe(401);

    const ui = await production.http.post('/codec/decode', body, { headers: { origin: UI_ORIGIN } });
    expect(ui.status).toBe(401);
    expect(ui.data.error.code).toBe('UNAUTHORIZED');
    expect((await production.http.post('/codec/decode', body, { headers: bearer })).status).toBe(200);
  });

  it('checks the key before it reads the body: a malformed or 15 MiB body without a key gets 401', async () => {
    for (const api of [dev, production]) {
      const malformed = await api.http.post('/codec/decode', '{"payloads": [', {
        headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
      });
      expect(malformed.status).toBe(401);
    }
    // Only the head and 1 KiB of a declared 15 MiB body are sent: the answer comes without the rest.
    const { port } = new URL(production.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: Number(port) }, () => {
        socket.write(
          'POST /codec/decode HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
            `Content-Length: ${15 * 1024 * 1024}\r\n\r\n{"payloads": [${' '.repeat(1024)}`,
        );
      });
      socket.setTimeout(10_000, () => {
        socket.destroy();
        reject(new Error('no answer before the body was complete'));
      });
      socket.once('data', (chunk: Buffer) => {
        socket.destroy();
        resolve(chunk.toString('latin1'));
      });
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
  });

  it('names the field of a malformed request and refuses a payload it cannot decrypt', async () => {
    const notBase64 = await dev.http.post(
      '/codec/decode',
      { payloads: [{ data: '%%%' }] },
      { headers: bearer },
    );
    expect(notBase64.status).toBe(400);
    expect(notBase64.data.error.message).toMatch(/payloads\.0\.data/);
    const notAList = await dev.http.post('/codec/decode', { payloads: 'x' }, { headers: bearer });
    expect(notAList.status).toBe(400);
    expect(notAList.data.error.message).toMatch(/payloads/);

    const other = new EncryptionCodec([{ id: 'other', key: Buffer.alloc(32, 1) }]);
    const unknownKey = await dev.http.post(
      '/codec/decode',
      { payloads: [await sealedJson(capture, other)] },
      { headers: bearer },
    );
    expect(unknownKey.status).toBe(400);
    expect(unknownKey.data.error.message).toMatch(/key "other"/);
  });
});
