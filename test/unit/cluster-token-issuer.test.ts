import { createPublicKey, verify } from 'node:crypto';
import { startTokenIssuer, type TokenIssuer } from '../../src/dev/cluster/token-issuer';

// The tokens `npm run cluster -- --authorizer` hands out verify against the JWKS it serves to the server.

let issuer: TokenIssuer;

beforeAll(async () => {
  issuer = await startTokenIssuer();
});

afterAll(async () => {
  await issuer.close();
});

it('signs tokens with the key its JWKS publishes, carrying the permissions given', async () => {
  const { keys } = (await (await fetch(issuer.jwksUrl)).json()) as { keys: Array<Record<string, string>> };
  expect(keys).toHaveLength(1);
  const token = issuer.token('orders', ['orders:write']);
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const decoded = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  expect(decoded(header)).toMatchObject({ alg: 'RS256', kid: keys[0]!.kid });
  expect(decoded(payload)).toMatchObject({ sub: 'orders', permissions: ['orders:write'] });
  const key = createPublicKey({ key: keys[0]!, format: 'jwk' });
  expect(
    verify('sha256', Buffer.from(`${header}.${payload}`), key, Buffer.from(signature, 'base64url')),
  ).toBe(true);
  const forged = Buffer.from(JSON.stringify({ sub: 'orders', permissions: ['default:write'] })).toString(
    'base64url',
  );
  expect(verify('sha256', Buffer.from(`${header}.${forged}`), key, Buffer.from(signature, 'base64url'))).toBe(
    false,
  );
});
