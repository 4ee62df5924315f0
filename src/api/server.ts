import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyError, type FastifyRequest } from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import type { ApiCaller } from '../api-callers';
import type { LifecycleClient } from '../client/lifecycle-client';
import { codecRoutes, type CodecRoutesOptions } from './codec-routes';
import { deliveryBudgets, isCheapRefusal } from './delivery-budgets';
import { isWebhookDelivery } from './delivery-intake';
import { ApiError, toApiError } from './errors';
import { lifecycleRoutes, type LifecycleRoutesOptions } from './lifecycle-routes';
import { defaultApiLimits, type ApiLimits } from './limits';
import { recordApiMetrics } from './metrics';
import { addRateLimits } from './rate-limits';
import { webhookRoutes, type WebhookRoutesOptions } from './webhook-routes';
import { READINESS_PATH } from '../readiness';

export interface ApiOptions {
  lifecycles: LifecycleClient;
  /** Who may call, by API key: each its scopes and the owner of the lifecycles it starts. */
  callers: readonly ApiCaller[];
  defaults: LifecycleRoutesOptions['defaults'];
  /** The providers lifecycles run on (PAYMENTS_PROVIDER): a start on another is refused; unset: any. */
  providers?: LifecycleRoutesOptions['providers'];
  logger?: Logger | false;
  /** Webhook deliveries at POST /webhooks/:provider, one intake per provider; none: the route is not served. */
  webhooks?: Omit<WebhookRoutesOptions, 'budgets'>;
  /** The codec server at /codec/encode and /codec/decode; none means it is not served. */
  codec?: Omit<CodecRoutesOptions, 'callers'>;
  /** Rate limit and time-outs of every route; the configuration's defaults when not given. */
  limits?: ApiLimits;
  /** The proxies whose X-Forwarded-For is believed (addresses or CIDRs); none: the socket's address counts. */
  trustProxy?: readonly string[];
  /** Where the request metrics are recorded; the caller serves it on an internal port (serveMetrics). */
  metrics?: Registry;
  /** /docs and /openapi.json; served unless false. */
  docs?: boolean;
}

function validationError(error: FastifyError): ApiError {
  const problems = (error.validation ?? []).map((issue) => {
    const path = issue.instancePath.replaceAll('/', '.').replace(/\.$/, '');
    const where = `${error.validationContext ?? 'body'}${path}`;
    const unknownKey = (issue.params as { keys?: string[] })?.keys;
    return {
      field: unknownKey ? `${where}.${unknownKey.join(',')}` : where,
      issue: issue.message ?? 'invalid',
    };
  });
  const message = problems.map((problem) => `${problem.field}: ${problem.issue}`).join('; ') || error.message;
  return new ApiError('VALIDATION_FAILED', message, problems);
}

/** Only JSON is read; the message names what came instead. */
function unsupportedMediaType(request: FastifyRequest): ApiError {
  const sent = request.headers['content-type'];
  const what = sent ? `a body of type ${JSON.stringify(sent)}` : 'a body without a Content-Type';
  return new ApiError(
    'UNSUPPORTED_MEDIA_TYPE',
    `${what} is not accepted: send JSON with Content-Type: application/json`,
  );
}

/** The HTTP API: lifecycles for order systems, its OpenAPI document and docs page, one error shape. */
export async function buildApi(options: ApiOptions) {
  const limits = options.limits ?? defaultApiLimits;
  const headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  const server = Fastify({
    loggerInstance: options.logger || undefined,
    requestTimeout: limits.requestTimeoutMs,
    // Exact proxies only (proxy-addr): request.ip is then the first hop of X-Forwarded-For that is not one.
    trustProxy: options.trustProxy?.length ? [...options.trustProxy] : false,
    // Node checks the time-outs on this interval (30 s by default, longer than the time-outs themselves).
    http: { headersTimeout, connectionsCheckingInterval: Math.max(100, Math.floor(headersTimeout / 2)) },
  });
  recordApiMetrics(server, options.metrics ?? new Registry());
  const app = server.withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // Every request is budgeted: per caller, per client address; a webhook delivery once it is checked.
  await app.register(rateLimit, { global: false });
  addRateLimits(server, limits, options.callers);
  const budgets = deliveryBudgets((rateLimitOptions) => server.createRateLimit(rateLimitOptions), limits);

  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    let apiError: ApiError;
    if (error.validation) apiError = validationError(error);
    else if (error.statusCode === 415) apiError = unsupportedMediaType(request);
    else if (error.statusCode === 413) apiError = new ApiError('PAYLOAD_TOO_LARGE', error.message);
    else if (error.statusCode === 400) apiError = new ApiError('VALIDATION_FAILED', error.message);
    else apiError = toApiError(error);
    if (isWebhookDelivery(request) && isCheapRefusal(apiError)) {
      apiError = await budgets.refused(request, apiError);
    }
    if (apiError.status >= 500) request.log.error({ err: error }, apiError.message);
    if (apiError.retryAfterSeconds) reply.header('retry-after', String(apiError.retryAfterSeconds));
    return reply.code(apiError.status).send(apiError.toBody());
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(new ApiError('NOT_FOUND', `no route ${request.method} ${request.url}`).toBody()),
  );

  if (options.docs !== false) {
    await app.register(swagger, {
      openapi: {
        info: { title: 'Payment-authorization lifecycles', version: '1.0.0' },
        components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer' } } },
      },
      transform: jsonSchemaTransform,
    });
    await app.register(swaggerUi, { routePrefix: '/docs' });
    app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
  }
  app.get(READINESS_PATH, { schema: { hide: true } }, () => ({ status: 'ok' }));

  await app.register(lifecycleRoutes, {
    lifecycles: options.lifecycles,
    callers: options.callers,
    defaults: options.defaults,
    answerWaitMs: limits.answerWaitMs,
    ...(options.providers && { providers: options.providers }),
  });
  if (options.webhooks) await app.register(webhookRoutes, { ...options.webhooks, budgets });
  if (options.codec) await app.register(codecRoutes, { ...options.codec, callers: options.callers });
  return app;
}
