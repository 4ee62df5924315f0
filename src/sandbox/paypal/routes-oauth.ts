import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PaymentsDialectName } from '../../providers/paypal/dialects';
import type { AccessTokens } from '../access-tokens';
import type { SandboxContext } from '../context';
import { debugId } from './errors';

const scopes = [
  'https://uri.paypal.com/services/payments/payment/authcapture',
  'https://uri.paypal.com/services/applications/webhooks',
];

function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

/** POST /v1/oauth2/token: OAuth2 client credentials with HTTP Basic, as PayPal's token endpoint. */
export function registerOAuthRoutes(app: FastifyInstance, context: SandboxContext): void {
  app.post('/v1/oauth2/token', async (request, reply) => {
    const credentials = basicCredentials(request.headers.authorization);
    const { clientId, clientSecret } = context.credentials;
    if (
      !credentials ||
      !sameSecret(credentials.id, clientId) ||
      !sameSecret(credentials.secret, clientSecret)
    ) {
      return reply
        .code(401)
        .header('www-authenticate', 'Basic realm="payments-sandbox"')
        .send({ error: 'invalid_client', error_description: 'Client Authentication failed' });
    }
    const grantType = (request.body as Record<string, unknown> | undefined)?.grant_type;
    if (grantType !== 'client_credentials') {
      return reply.code(400).send({
        error: 'unsupported_grant_type',
        error_description: grantType === undefined ? 'Grant Type is NULL' : 'unsupported grant_type',
      });
    }
    const { token, expiresIn } = context.tokens.issue();
    return {
      scope: scopes.join(' '),
      access_token: token,
      token_type: 'Bearer',
      app_id: 'APP-SANDBOX0000000000',
      expires_in: expiresIn,
      nonce: `${context.now().toISOString()}${randomBytes(16).toString('base64url')}`,
    };
  });
}

/**
 * Every call of interfaces A and B needs `Authorization: Bearer <token>` with a token this sandbox accepts.
 * A 401 is an OAuth error in the spec mode, PayPal's AUTHENTICATION_FAILURE error in `paypal` mode.
 */
export function requireBearerToken(tokens: AccessTokens, dialect: PaymentsDialectName) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
    if (match?.[1] && tokens.accepts(match[1])) return;
    const description = match
      ? 'The access token is invalid, expired or revoked.'
      : 'Authentication failed due to missing or invalid Authorization header.';
    reply.code(401).header('www-authenticate', 'Bearer error="invalid_token"');
    if (dialect === 'paypal') {
      return reply.send({
        name: 'AUTHENTICATION_FAILURE',
        message:
          'Authentication failed due to missing authorization header, or invalid authentication credentials.',
        debug_id: debugId(),
      });
    }
    return reply.send({ error: 'invalid_token', error_description: description });
  };
}
