import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import axios from 'axios';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { clearKeyCaller } from '../../src/api-callers';
import { buildApi } from '../../src/api/server';
import { LifecycleClient } from '../../src/client/lifecycle-client';
import { operatorTokenVerifier } from '../../src/codec/operator-tokens';
import { EncryptionCodec } from '../../src/codec/payload-encryption';
import { connectClient, TEST_CODEC_KEY } from '../helpers/temporal';

// The codec server with operators' own tokens: JWTs from an OpenID provider (here a discovery document and a
// JWKS on a loopback port), as the Web UI forwards them with "pass access token".

const API_KEY = 'codec-operator-test-key';
const UI_ORIGIN = 'https://temporal-ui.example';
const AUDIENCE = 'urn:payments:codec';
const KID = 'issuer-key-1';
const codec = new EncryptionCodec([TEST_CODEC_KEY]);

let issuerServer: Server;
let issuer: string;
let issuerKey: CryptoKey;
let strangerKey: CryptoKey;
let api: { http: ReturnType<typeof axios.create>; close: () => Promise<void> };

async function startIssuer(publicJwk: object): Promise<string> {
  issuerServer = createServer((request, response) => {
    const base = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
    const documents: Record<string, unknown> = {
      '/.well-known/openid-configuration': { issuer: base, jwks_uri: `${base}/jwks` },
      '/jwks': { keys: [{ ...publicJwk, kid: KID, alg: 'RS256', use: 'sig' }] },
    };
    const document = documents[request.url ?? ''];
    if (document)
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => issuerServer.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  const keys = await generateKeyPair('RS256');
  issuerKey = keys.privateKey;
  strangerKey = (await generateKeyPair('RS256')).privateKey;
  issuer = await startIssuer(await exportJWK(keys.publicKey));

  const { client, close } = await connectClient();
  const app = await buildApi({
    lifecycles: new LifecycleClient(client, 'codec-operator-test'),
    callers: [clearKeyCaller([API_KEY])],
    defaults: { reauthorizeAfter: '3 days', expiryPolicy: 'void', lateEventWindow: '3 days' },
    logger: false,
    codec: {
      codec,
      corsOrigins: [UI_ORIGIN],
      // As in production: no request is admitted for being local.
      loopbackUiWithoutKey: false,
      operatorTokens: operatorTokenVerifier({ issuer, audience: AUDIENCE, scope: 'codec' }),
    },
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  api = {
    http: axios.create({ baseURL: url, validateStatus: () => true }),
    close: async () => (await app.close(), await close()),
  };
});
afterAll(async () => {
  await api?.close();
  await new Promise((resolve) => issuerServer?.close(resolve));
});

type TokenOptions = {
  claims?: JWTPayload;
  key?: CryptoKey;
  issuer?: string;
  audience?: string;
  expiresAt?: number;
};
function operatorToken(options: TokenOptions = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: 'openid codec', ...options.claims })
    .setProtectedHeader({ alg: 'RS256', kid: KID })
    .setIssuer(options.issuer ?? issuer)
    .setSubject('operator-ada')
    .setAudience(options.audience ?? AUDIENCE)
    .setIssuedAt(now - 60)
    .setExpirationTime(options.expiresAt ?? now + 300)
    .sign(options.key ?? issuerKey);
}

async function sealed(value: unknown) {
  const [payload] = (await codec.encode([defaultPayloadConverter.toPayload(value)])) as [Payload];
  const base64 = (bytes?: Uint8Array | null) => Buffer.from(bytes ?? []).toString('base64');
  return {
    metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, base64(v)])),
    data: base64(payload.data),
  };
}
const capture = { amount: { currency_code: 'EUR', value: '18.40' } };

async function decodeWith(token: string) {
  return api.http.post(
    '/codec/decode',
    { payloads: [await sealed(capture)] },
    { headers: { origin: UI_ORIGIN, authorization: `Bearer ${token}`, 'x-namespace': 'default' } },
  );
}

describe('codec server with operators’ tokens', () => {
  it('decodes for an operator whose token the issuer signed with the codec scope', async () => {
    const decoded = await decodeWith(await operatorToken());
    expect(decoded.status).toBe(200);
    expect(decoded.headers['access-control-allow-origin']).toBe(UI_ORIGIN);
    const [payload] = decoded.data.payloads;
    expect(JSON.parse(Buffer.from(payload.data, 'base64').toString())).toEqual(capture);
  });

  it('also takes the scope as an `scp` list', async () => {
    const token = await operatorToken({ claims: { scope: undefined, scp: ['openid', 'codec'] } });
    expect((await decodeWith(token)).status).toBe(200);
  });

  it('refuses an expired token', async () => {
    const refused = await decodeWith(await operatorToken({ expiresAt: Math.floor(Date.now() / 1000) - 120 }));
    expect(refused.status).toBe(401);
    expect(refused.data.error.message).toMatch(/expired/);
  });

  it('refuses a token from another issuer', async () => {
    const refused = await decodeWith(await operatorToken({ issuer: 'https://login.elsewhere.example' }));
    expect(refused.status).toBe(401);
    expect(refused.data.error.message).toMatch(/iss/);
  });

  it('refuses a token for another audience', async () => {
    const refused = await decodeWith(await operatorToken({ audience: 'urn:elsewhere' }));
    expect(refused.status).toBe(401);
    expect(refused.data.error.message).toMatch(/aud/);
  });

  it('refuses a token signed by a key the issuer does not publish', async () => {
    const refused = await decodeWith(await operatorToken({ key: strangerKey }));
    expect(refused.status).toBe(401);
    expect(refused.data.error.message).toMatch(/not signed by the issuer/);
  });

  it('refuses a token whose signature does not match its claims', async () => {
    const [header, , signature] = (await operatorToken()).split('.');
    const claims = Buffer.from(
      JSON.stringify({ iss: issuer, sub: 'mallory', aud: AUDIENCE, scope: 'codec', exp: 4_000_000_000 }),
    ).toString('base64url');
    expect((await decodeWith(`${header}.${claims}.${signature}`)).status).toBe(401);
  });

  it('refuses an operator whose token lacks the codec scope, and the payload stays sealed', async () => {
    const refused = await decodeWith(await operatorToken({ claims: { scope: 'openid profile codec:read' } }));
    expect(refused.status).toBe(403);
    expect(refused.data.error.code).toBe('FORBIDDEN');
    expect(JSON.stringify(refused.data)).not.toContain('18.40');
  });

  it('refuses a request without credentials, and keeps serving API keys with the codec scope', async () => {
    const body = { payloads: [await sealed(capture)] };
    expect((await api.http.post('/codec/decode', body, { headers: { origin: UI_ORIGIN } })).status).toBe(401);
    const withKey = await api.http.post('/codec/decode', body, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    expect(withKey.status).toBe(200);
  });
});
