import { describeIssues } from '../parsing';
import { parseJsonOrUndefined, PaymentsApiError, providerError } from './errors';
import { sendToProvider, type ProviderHttp } from './http-transport';
import { accessTokenResponseSchema } from './schemas';

export type PaymentsCredentials = { clientId: string; clientSecret: string } | { accessToken: string };

/** Supplies the bearer token of every request and, when it can, a fresh one after a 401. */
export interface AccessTokenSource {
  accessToken(): Promise<string>;
  /** A token other than `rejected`, or undefined when this source has no other token to offer. */
  tokenAfterRejection(rejected: string): Promise<string | undefined>;
}

export const TOKEN_PATH = '/v1/oauth2/token';
const MAX_REFRESH_MARGIN_MS = 60_000;

export function accessTokenSource(
  http: ProviderHttp,
  credentials: PaymentsCredentials,
  now: () => number = Date.now,
): AccessTokenSource {
  if ('accessToken' in credentials) return staticAccessToken(credentials.accessToken);
  return new ClientCredentialsTokenSource(http, credentials.clientId, credentials.clientSecret, now);
}

function staticAccessToken(token: string): AccessTokenSource {
  return {
    accessToken: () => Promise.resolve(token),
    tokenAfterRejection: () => Promise.resolve(undefined),
  };
}

/**
 * OAuth2 client credentials grant (RFC 6749 section 4.4). The token is cached until shortly before
 * `expires_in` runs out, and concurrent callers share one refresh instead of each asking for a token.
 */
class ClientCredentialsTokenSource implements AccessTokenSource {
  private cached: { token: string; refreshAt: number } | undefined;
  private refreshing: Promise<string> | undefined;

  constructor(
    private readonly http: ProviderHttp,
    private readonly clientId: string,
    private readonly clientSecret: string,
    private readonly now: () => number = Date.now,
  ) {}

  accessToken(): Promise<string> {
    if (this.cached && this.now() < this.cached.refreshAt) return Promise.resolve(this.cached.token);
    return this.refresh();
  }

  tokenAfterRejection(rejected: string): Promise<string | undefined> {
    // Another caller may already have replaced the rejected token.
    if (this.cached && this.cached.token !== rejected) return this.accessToken();
    this.cached = undefined;
    return this.refresh();
  }

  private refresh(): Promise<string> {
    this.refreshing ??= this.requestToken().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async requestToken(): Promise<string> {
    const operation = 'requestAccessToken';
    const basic = Buffer.from(`${this.clientId}:${this.clientSecret}`, 'utf8').toString('base64');
    const requestedAt = this.now();
    const response = await sendToProvider(this.http, operation, {
      method: 'POST',
      url: TOKEN_PATH,
      headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      data: 'grant_type=client_credentials',
    });
    if (response.status < 200 || response.status >= 300) {
      throw providerError(operation, response.status, response.headers, response.body);
    }
    const parsed = accessTokenResponseSchema.safeParse(parseJsonOrUndefined(response.body));
    if (!parsed.success) {
      throw new PaymentsApiError({
        kind: 'invalid-response',
        status: response.status,
        // describeIssues names paths and expectations, never the received values, so no token leaks.
        message: `${operation}: invalid token response: ${describeIssues(parsed.error)}`,
      });
    }
    const lifetimeMs = parsed.data.expires_in * 1000;
    const refreshAt = requestedAt + lifetimeMs - Math.min(MAX_REFRESH_MARGIN_MS, lifetimeMs / 10);
    this.cached = { token: parsed.data.access_token, refreshAt };
    return parsed.data.access_token;
  }
}
