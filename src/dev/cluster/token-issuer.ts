import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The cluster's token issuer for `npm run cluster -- --authorizer`: a signing key made at start, its public
 * half served as a JWKS on a loopback port (the server's `jwtKeyProvider` reads it), and tokens whose
 * `permissions` claim the server's default claim mapper reads (`<namespace>:<role>`, `temporal-system:admin`).
 */
export interface TokenIssuer {
  jwksUrl: string;
  /** A signed token (RS256) carrying these permissions, for the `Authorization: Bearer` header. */
  token(subject: string, permissions: string[]): string;
  close(): Promise<void>;
}

/** Long enough for a cluster left running; the key, and so every token, is new at each start. */
const TOKEN_LIFETIME_S = 30 * 86_400;

const base64url = (value: Buffer | string) => Buffer.from(value).toString('base64url');

function signedToken(key: KeyObject, kid: string, claims: Record<string, unknown>): string {
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid }));
  const payload = base64url(JSON.stringify(claims));
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), key);
  return `${header}.${payload}.${base64url(signature)}`;
}

export async function startTokenIssuer(): Promise<TokenIssuer> {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomUUID();
  const jwks = JSON.stringify({
    keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }],
  });
  const server: Server = createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/.well-known/jwks.json') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    jwksUrl: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    token(subject, permissions) {
      const now = Math.floor(Date.now() / 1000);
      return signedToken(privateKey, kid, {
        sub: subject,
        permissions,
        iat: now,
        exp: now + TOKEN_LIFETIME_S,
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
