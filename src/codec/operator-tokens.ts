import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';

/**
 * The operators' own tokens at the codec server: the Web UI, logged in through the operators' OpenID
 * provider with "pass access token", sends each operator's access token (a JWT) as `Authorization: Bearer`.
 * A token is accepted when the issuer's published keys sign it, its `iss` is the issuer, its `aud` names the
 * audience (when one is set), it has not expired, and its `scope` (or `scp`) grants the codec right.
 */
export interface OperatorTokenSettings {
  /** The OpenID provider's issuer identifier, e.g. https://login.example.com/realms/payments. */
  issuer: string;
  /** The `aud` the tokens must name; none = any. */
  audience?: string;
  /** The scope that grants decoding. */
  scope: string;
  /** The issuer's JWKS; default the `jwks_uri` of its discovery document. */
  jwksUrl?: string;
}

export type OperatorTokenCheck =
  | { outcome: 'accepted'; subject: string }
  | { outcome: 'invalid'; reason: string }
  | { outcome: 'lacks-scope'; subject: string };

export type OperatorTokenVerifier = (token: string) => Promise<OperatorTokenCheck>;

/** Only asymmetric signatures: a token signed with a shared secret could be made by anyone holding it. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'EdDSA'];
const CLOCK_TOLERANCE_S = 30;

/** The JWKS named by the issuer's discovery document (OpenID Connect Discovery). */
async function discoveredJwksUrl(issuer: string): Promise<URL> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  const document = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
  if (document.issuer !== issuer) throw new Error(`${url} names the issuer ${String(document.issuer)}`);
  if (typeof document.jwks_uri !== 'string') throw new Error(`${url} names no jwks_uri`);
  return new URL(document.jwks_uri);
}

function grantedScopes(claims: JWTPayload): string[] {
  if (typeof claims.scope === 'string') return claims.scope.split(' ');
  if (Array.isArray(claims.scp)) return claims.scp.filter((item) => typeof item === 'string');
  if (typeof claims.scp === 'string') return claims.scp.split(' ');
  return [];
}

function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) return `the token's ${error.claim} is not accepted`;
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey)
    return "the token is not signed by the issuer's keys";
  if (error instanceof errors.JOSEError) return `the token is not accepted (${error.code})`;
  return 'the token cannot be checked';
}

/** A verifier; the issuer's keys are fetched at the first token and again when a token names an unknown key. */
export function operatorTokenVerifier(settings: OperatorTokenSettings): OperatorTokenVerifier {
  let keys: Promise<JWTVerifyGetKey> | undefined;
  const issuerKeys = () => {
    keys ??= (
      settings.jwksUrl ? Promise.resolve(new URL(settings.jwksUrl)) : discoveredJwksUrl(settings.issuer)
    )
      .then((url) => createRemoteJWKSet(url))
      // A discovery that fails is tried again at the next token.
      .catch((error: unknown) => {
        keys = undefined;
        throw error;
      });
    return keys;
  };

  return async (token) => {
    try {
      const { payload } = await jwtVerify(token, await issuerKeys(), {
        issuer: settings.issuer,
        audience: settings.audience,
        algorithms: ALGORITHMS,
        requiredClaims: ['exp', 'sub'],
        clockTolerance: CLOCK_TOLERANCE_S,
      });
      const subject = payload.sub as string;
      return grantedScopes(payload).includes(settings.scope)
        ? { outcome: 'accepted', subject }
        : { outcome: 'lacks-scope', subject };
    } catch (error) {
      return { outcome: 'invalid', reason: reasonOf(error) };
    }
  };
}

/** A JWT's shape (three base64url parts): API keys are told apart from tokens by it. */
export function looksLikeJwt(value: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]+$/.test(value);
}
