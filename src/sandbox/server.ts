import Fastify, {
  LogController,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import pino, { type Logger } from 'pino';
import { AccessTokens } from './access-tokens';
import type { SandboxContext } from './context';
import { WebhookDeliveries, type DeliveryRecord, type DeliveryRetry } from './deliveries';
import { ProviderError, malformedRequestJson } from './errors';
import { FaultInjector } from './faults';
import { RequestIdempotency } from './idempotency';
import { AuthorizationLedger } from './ledger';
import type { SandboxMode } from './mode';
import { sandboxModes, type SandboxModeName, type SandboxModeOptions } from './modes';
import type { LedgerEvent } from './records';
import { RefundLedger } from './refunds';
import { registerControlRoutes } from './routes-control';
import { webhookId } from './ids';
import { WebhookRegistry } from './webhooks';
import { READINESS_PATH } from '../readiness';

export interface SandboxOptions extends SandboxModeOptions {
  /** The contract it answers by: `spec` (the default) or `paypal` (PayPal's published API, see docs/sandbox.md). */
  mode?: SandboxModeName;
  /** 0 or none: a free port the OS picks. */
  port?: number;
  host?: string;
  clientId?: string;
  clientSecret?: string;
  /** Bearer tokens accepted besides the ones the token endpoint issues. */
  staticTokens?: string[];
  tokenTtlSeconds?: number;
  authorizationValidityDays?: number;
  deliveryRetry?: DeliveryRetry;
  logger?: Logger | false;
  /** The base URL others reach the sandbox at, when not the one it listens on (containers, proxies). */
  publicUrl?: string;
  /** The sandbox's clock; tests move time with it. */
  now?: () => Date;
  /** How long a PayPal-Request-Id is kept: 45 days unless a test shortens it. */
  requestIdRetentionMs?: number;
}

export interface Sandbox {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:8090. */
  url: string;
  /** What a listener checks this sandbox's delivery signatures with. */
  certificateUrl: string;
  certificatePem: string;
  /** The delivery log, as GET /sandbox/deliveries returns it. */
  deliveries(): DeliveryRecord[];
  /** Resolves once every webhook delivery so far has been delivered or given up. */
  deliveriesSettled(): Promise<void>;
  close(): Promise<void>;
}

const defaultDeliveryRetry: Required<DeliveryRetry> = {
  attempts: 8,
  initialDelayMs: 500,
  maxDelayMs: 60_000,
  timeoutMs: 10_000,
};

function parseJson(body: string): unknown {
  if (body.trim() === '') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    throw malformedRequestJson();
  }
}

/** Every error answer, the core's and Fastify's, in the mode's error body. */
function registerErrorHandling(app: FastifyInstance, mode: SandboxMode): void {
  app.setErrorHandler((error: FastifyError | ProviderError, request, reply) => {
    if (error instanceof ProviderError) {
      return reply.code(error.statusCode).headers(error.headers).send(mode.errorBody(error.body));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const name =
        { 413: 'REQUEST_ENTITY_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE' }[status] ?? 'INVALID_REQUEST';
      return reply.code(status).send(mode.errorBody({ name, message: error.message }));
    }
    const body = mode.errorBody({
      name: 'INTERNAL_SERVER_ERROR',
      message: 'An internal server error occurred.',
    });
    request.log.error({ err: error, answer: body }, 'sandbox failed to handle a request');
    return reply.code(500).send(body);
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(
      mode.errorBody({
        name: 'RESOURCE_NOT_FOUND',
        message: `The sandbox has no ${request.method} ${request.url.split('?')[0]}.`,
      }),
    ),
  );
}

/** One line per request, at debug: the provider's traffic is not the service's news. */
class DebugRequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    request.log.debug(
      {
        method: request.method,
        url: request.url,
        statusCode: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
        ...(error && { err: error }),
      },
      'sandbox request',
    );
  }
}

function listeningUrl(host: string, port: number): string {
  if (host === '0.0.0.0' || host === '::') return `http://127.0.0.1:${port}`;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Starts a local payments provider (interfaces A and B, OAuth2, signed webhook deliveries, control API). */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const now = options.now ?? (() => new Date());
  const log = options.logger || pino({ level: 'silent' });
  let baseUrl = '';

  // The mode is built over the core below, so the core reaches it through closures that run only once
  // requests arrive.
  const webhooks = new WebhookRegistry(() => mode.newWebhookId?.() ?? webhookId());
  const deliveries = new WebhookDeliveries({
    webhooks,
    sign: (transmission) => mode.signDelivery(transmission),
    retry: { ...defaultDeliveryRetry, ...options.deliveryRetry },
    now,
    log,
  });
  /** Authorizations, captures and refunds all publish their events as webhook deliveries. */
  const publish = (event: LedgerEvent) => deliveries.publish(mode.deliveryEvent(event));
  const ledger = new AuthorizationLedger({
    validityDays: options.authorizationValidityDays ?? 29,
    now,
    onEvent: publish,
  });
  const context: SandboxContext = {
    ledger,
    refunds: new RefundLedger(ledger, { now, onEvent: publish }),
    webhooks,
    deliveries,
    faults: new FaultInjector(),
    tokens: new AccessTokens({
      ttlSeconds: options.tokenTtlSeconds ?? 32_400,
      staticTokens: options.staticTokens ?? [],
      now,
    }),
    idempotency: new RequestIdempotency(now, options.requestIdRetentionMs),
    credentials: {
      clientId: options.clientId ?? 'sandbox-client',
      clientSecret: options.clientSecret ?? 'sandbox-secret',
    },
    baseUrl: () => baseUrl,
    now,
    log,
  };
  const mode = await sandboxModes[options.mode ?? 'spec'](context, options);

  const app = Fastify({
    loggerInstance: log,
    forceCloseConnections: true,
    logController: new DebugRequestLog(),
  }) as unknown as FastifyInstance;
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJson(body as string));
    } catch (error) {
      done(error as ProviderError, undefined);
    }
  });
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  registerErrorHandling(app, mode);
  registerControlRoutes(app, context, mode);
  app.get(READINESS_PATH, () => ({ status: 'ok' }));
  await mode.registerRoutes(app);

  const host = options.host ?? '127.0.0.1';
  await app.listen({ port: options.port ?? 0, host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  baseUrl = (options.publicUrl ?? listeningUrl(host, port)).replace(/\/+$/, '');
  log.info({ url: baseUrl }, 'payments sandbox listening');

  return {
    url: baseUrl,
    ...mode.deliveryVerification(),
    deliveries: () => deliveries.list(),
    deliveriesSettled: () => deliveries.settled(),
    close: async () => {
      context.faults.releaseStalls();
      deliveries.stop();
      await app.close();
    },
  };
}
