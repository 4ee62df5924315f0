import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { z } from 'zod';
import { Provider, errors, type OidcContext } from 'oidc-provider';

/**
 * The cluster's OpenID provider for operators (`npm run cluster -- --oidc`), run as its own process:
 * `tsx src/dev/cluster/oidc-provider.ts`. Built on oidc-provider with its development login form (any login,
 * any password: for a machine's own cluster only). The Web UI logs operators in through it; their access
 * tokens are JWTs for one resource (OIDC_AUDIENCE), signed with a key made at start and published at
 * /jwks, carrying the scope `codec` for the operators in OIDC_CODEC_OPERATORS and, when set, the
 * `permissions` Temporal's authorizer reads.
 */
const settings = z
  .object({
    OIDC_PORT: z.coerce.number().int().positive(),
    /** The issuer identifier: how browsers and the UI server reach this process. */
    OIDC_ISSUER: z.url(),
    /** JSON: [{ client_id, client_secret, redirect_uris }]. */
    OIDC_CLIENTS: z.string().transform((value) =>
      z
        .array(
          z.object({
            client_id: z.string().min(1),
            client_secret: z.string().min(16),
            redirect_uris: z.array(z.url()).min(1),
          }),
        )
        .parse(JSON.parse(value)),
    ),
    /** The resource the access tokens are for: their `aud`. */
    OIDC_AUDIENCE: z.string().min(1),
    /** Logins whose tokens carry the scope `codec`, comma-separated; `*` = every login. */
    OIDC_CODEC_OPERATORS: z
      .string()
      .default('*')
      .transform((value) => value.split(',').map((item) => item.trim())),
    /** Temporal's `permissions` claim in every access token, comma-separated (e.g. `payments:read`). */
    OIDC_TEMPORAL_PERMISSIONS: z
      .string()
      .default('')
      .transform((value) => value.split(',').filter(Boolean)),
  })
  .parse(process.env);

const ACCESS_TOKEN_TTL_S = 3600;

function accountOf(ctx: OidcContext): string | undefined {
  const { entities, session } = ctx.oidc;
  return entities.AuthorizationCode?.accountId ?? entities.Account?.accountId ?? session?.accountId;
}

/** Before a login the provider offers the scope to everyone; once the operator is known, to codec operators. */
function resourceScope(ctx: OidcContext): string {
  const account = accountOf(ctx);
  const everyone = settings.OIDC_CODEC_OPERATORS.includes('*');
  return !account || everyone || settings.OIDC_CODEC_OPERATORS.includes(account) ? 'codec' : '';
}

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const provider = new Provider(settings.OIDC_ISSUER, {
  clients: settings.OIDC_CLIENTS.map((client) => ({
    ...client,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  })),
  jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' }] },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  routes: { jwks: '/jwks' },
  scopes: ['openid', 'profile', 'email', 'offline_access'],
  claims: { openid: ['sub'], profile: ['name'], email: ['email'] },
  findAccount: (_ctx: unknown, id: string) => ({
    accountId: id,
    claims: () => ({ sub: id, name: id, email: `${id}@operators.localhost` }),
  }),
  features: {
    devInteractions: { enabled: true },
    resourceIndicators: {
      enabled: true,
      // The UI server asks for no resource: every authorization is for the one the codec server checks.
      defaultResource: () => settings.OIDC_AUDIENCE,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx: OidcContext, indicator: string) => {
        if (indicator !== settings.OIDC_AUDIENCE) throw new errors.InvalidTarget();
        return {
          scope: resourceScope(ctx),
          audience: settings.OIDC_AUDIENCE,
          accessTokenFormat: 'jwt',
          accessTokenTTL: ACCESS_TOKEN_TTL_S,
          jwt: { sign: { alg: 'RS256' } },
        };
      },
    },
  },
  extraTokenClaims: () =>
    settings.OIDC_TEMPORAL_PERMISSIONS.length > 0
      ? { permissions: settings.OIDC_TEMPORAL_PERMISSIONS }
      : undefined,
  // The UI server is a confidential client: it authenticates with its secret, without PKCE.
  pkce: { required: () => false },
});
provider.on('server_error', (_ctx, error) => console.error('OpenID provider error:', error));

const server = createServer(provider.callback());
server.listen(settings.OIDC_PORT, '127.0.0.1', () => {
  console.log(`OpenID provider: ${settings.OIDC_ISSUER} (JWKS ${settings.OIDC_ISSUER}/jwks)`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
