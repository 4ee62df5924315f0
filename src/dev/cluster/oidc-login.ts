import { randomBytes } from 'node:crypto';
import { runService, waitForHttp, type ServiceProcess } from '../child-process';
import { findFreePort } from '../ports';

/**
 * The operators' login for `npm run cluster -- --oidc`: the OpenID provider process
 * (src/dev/cluster/oidc-provider.ts), the Web UI server's settings to log in through it and forward each
 * operator's access token to the codec server, and the APIs' settings to accept those tokens.
 */
export interface OidcLogin {
  issuer: string;
  jwksUrl: string;
  /** The access tokens' `aud`, which the codec server requires. */
  audience: string;
  process: ServiceProcess;
}

/** A Web UI server that logs operators in: its URL (callback and origin) and its client at the provider. */
export interface OidcUiClient {
  uiUrl: string;
  clientId: string;
  clientSecret: string;
}

export const OIDC_AUDIENCE = 'urn:payments:codec';
export const CODEC_SCOPE = 'codec';
const CALLBACK_PATH = '/auth/sso/callback';

/** A client for the Web UI at `uiUrl`, with a secret made now. */
export function oidcUiClient(uiUrl: string, clientId = 'temporal-ui'): OidcUiClient {
  return { uiUrl, clientId, clientSecret: randomBytes(24).toString('base64url') };
}

export interface OidcLoginOptions {
  /** Default: a free port. */
  port?: number;
  clients: readonly OidcUiClient[];
  /** Logins granted the scope `codec`; default every login. */
  codecOperators?: readonly string[];
  /** Temporal's `permissions` claim in the operators' tokens (for the cluster's authorizer). */
  temporalPermissions?: readonly string[];
  log?: (line: string) => void;
}

export async function startOidcLogin(options: OidcLoginOptions): Promise<OidcLogin> {
  const port = options.port ?? (await findFreePort());
  // 127.0.0.1, not localhost: the provider listens there, and the browser and the UI server resolve it alike.
  const issuer = `http://127.0.0.1:${port}`;
  const process = runService(
    'oidc',
    'src/dev/cluster/oidc-provider.ts',
    {
      OIDC_PORT: String(port),
      OIDC_ISSUER: issuer,
      OIDC_AUDIENCE,
      OIDC_CLIENTS: JSON.stringify(
        options.clients.map((client) => ({
          client_id: client.clientId,
          client_secret: client.clientSecret,
          redirect_uris: [`${client.uiUrl}${CALLBACK_PATH}`],
        })),
      ),
      OIDC_CODEC_OPERATORS: (options.codecOperators ?? ['*']).join(','),
      OIDC_TEMPORAL_PERMISSIONS: (options.temporalPermissions ?? []).join(','),
    },
    { log: options.log },
  );
  try {
    await waitForHttp(`${issuer}/.well-known/openid-configuration`, process);
  } catch (error) {
    await process.stop();
    throw error;
  }
  return { issuer, jwksUrl: `${issuer}/jwks`, audience: OIDC_AUDIENCE, process };
}

/**
 * The UI server's variables (its config/docker.yaml template): OIDC login at the provider, and the codec
 * server called with the operator's access token (`passAccessToken`), never a key of the UI's own.
 */
export function uiLoginEnv(
  login: Pick<OidcLogin, 'issuer'>,
  client: OidcUiClient,
  scopes: readonly string[] = ['openid', 'profile', 'email', CODEC_SCOPE],
): NodeJS.ProcessEnv {
  return {
    TEMPORAL_AUTH_ENABLED: 'true',
    TEMPORAL_AUTH_PROVIDER_URL: login.issuer,
    TEMPORAL_AUTH_CLIENT_ID: client.clientId,
    TEMPORAL_AUTH_CLIENT_SECRET: client.clientSecret,
    TEMPORAL_AUTH_CALLBACK_URL: `${client.uiUrl}${CALLBACK_PATH}`,
    TEMPORAL_AUTH_SCOPES: scopes.join(','),
    TEMPORAL_CORS_ORIGINS: client.uiUrl,
    TEMPORAL_CODEC_PASS_ACCESS_TOKEN: 'true',
  };
}

/** The APIs' variables: the codec server accepts the provider's tokens with the scope `codec`. */
export function apiLoginEnv(login: OidcLogin, uiUrls: readonly string[]): NodeJS.ProcessEnv {
  return {
    CODEC_OIDC_ISSUER: login.issuer,
    CODEC_OIDC_AUDIENCE: login.audience,
    CODEC_OIDC_SCOPE: CODEC_SCOPE,
    CODEC_CORS_ORIGINS: uiUrls.join(','),
  };
}
