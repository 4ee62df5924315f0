import cors from '@fastify/cors';
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ApiCaller } from '../api-callers';
import { callerLookup } from '../auth/callers';
import { looksLikeJwt, type OperatorTokenVerifier } from '../codec/operator-tokens';
import { identifyCaller, requireScope } from './api-keys';
import { ApiError } from './errors';
import { errorBody } from './schemas';

export interface CodecRoutesOptions {
  codec: PayloadCodec;
  /** The callers; only those with the scope `codec` are served. */
  callers: readonly ApiCaller[];
  /** Browser origins allowed by CORS, e.g. the Temporal Web UI's. */
  corsOrigins: readonly string[];
  /**
   * Development only: a browser at a CORS origin on this machine (a loopback peer) needs no API key, so that
   * the local Web UI, which sends none, decodes payloads. Never set in production.
   */
  loopbackUiWithoutKey: boolean;
  /**
   * Operators' own tokens (JWTs from their OpenID provider, which the Web UI forwards with "pass access
   * token"), checked against the issuer's keys and the codec scope; none = API keys only.
   */
  operatorTokens?: OperatorTokenVerifier;
}

// Temporal's codec server protocol: Payloads as protobuf JSON, bytes in base64.
const base64 = z.base64({ message: 'base64' });
const payloadJson = z.object({
  metadata: z.record(z.string(), base64).optional(),
  data: base64.optional(),
});
// Protobuf JSON leaves an empty list out: `{}` is Payloads with none.
const payloadsBody = z.object({ payloads: z.array(payloadJson).default([]) });
type PayloadJson = z.infer<typeof payloadJson>;

function isLoopback(address: string | undefined): boolean {
  return address === '::1' || /^(::ffff:)?127\./.test(address ?? '');
}

function fromJson(payload: PayloadJson): Payload {
  const metadata = Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64')]),
  );
  return { metadata, data: Buffer.from(payload.data ?? '', 'base64') };
}

function toJson(payload: Payload): PayloadJson {
  const metadata = Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, value]) => [
      key,
      Buffer.from(value ?? new Uint8Array()).toString('base64'),
    ]),
  );
  return { metadata, data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64') };
}

/**
 * The codec server (POST /codec/encode, /codec/decode): the Web UI and `temporal … --codec-endpoint` show
 * payloads decrypted through it, so the keys stay with the service. Callers with the scope `codec` only:
 * operators decrypt, order systems (which move money) do not.
 */
export const codecRoutes: FastifyPluginAsyncZod<CodecRoutesOptions> = async (app, options) => {
  await app.register(cors, {
    origin: [...options.corsOrigins],
    methods: ['POST'],
    // The Web UI with "pass access token" also sends the operator's ID token (Authorization-Extras): ignored.
    allowedHeaders: ['Authorization', 'Authorization-Extras', 'Content-Type', 'X-Namespace'],
    credentials: true,
    maxAge: 600,
  });
  const identify = identifyCaller(options.callers);
  const findCaller = callerLookup(options.callers);
  const decrypts = requireScope('codec');
  const allowed = new Set(options.corsOrigins);
  // The peer's address, not a header: the Origin header says which page asks, never who asks.
  const localUi = (request: FastifyRequest) =>
    options.loopbackUiWithoutKey &&
    !request.headers.authorization &&
    allowed.has(request.headers.origin ?? '') &&
    isLoopback(request.socket.remoteAddress);
  // onRequest: the key is checked before the body is read (CORS preflights are answered before this hook).
  app.addHook('onRequest', async (request) => {
    if (localUi(request)) return;
    const operatorToken = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (
      options.operatorTokens &&
      operatorToken &&
      looksLikeJwt(operatorToken) &&
      !findCaller(request.headers.authorization)
    ) {
      const check = await options.operatorTokens(operatorToken);
      if (check.outcome === 'invalid') throw new ApiError('UNAUTHORIZED', `operator token: ${check.reason}`);
      if (check.outcome === 'lacks-scope')
        throw new ApiError('FORBIDDEN', `the operator ${check.subject} lacks the scope this route needs`);
      request.log.info({ operator: check.subject }, 'codec request by an operator token');
      return;
    }
    await identify(request);
    await decrypts(request);
  });

  for (const operation of ['encode', 'decode'] as const) {
    app.post(
      `/codec/${operation}`,
      {
        bodyLimit: 16 * 1024 * 1024,
        schema: {
          tags: ['codec'],
          summary: `Temporal codec server: ${operation} payloads`,
          security: [{ apiKey: [] }],
          body: payloadsBody,
          response: { 200: payloadsBody, 400: errorBody, 401: errorBody, 403: errorBody },
        },
      },
      async (request) => {
        const payloads = request.body.payloads.map(fromJson);
        const converted = await options.codec[operation](payloads).catch((error: unknown) => {
          // An unknown key id or a payload that fails authentication: the caller's data, not our failure.
          throw new ApiError(
            'VALIDATION_FAILED',
            `payloads: ${error instanceof Error ? error.message : 'cannot be converted'}`,
          );
        });
        return { payloads: converted.map(toJson) };
      },
    );
  }
};
