import type { FastifyRequest } from 'fastify';
import type { ApiCaller } from '../api-callers';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { LifecycleClient } from '../client/lifecycle-client';
import type { LifecycleInput } from '../workflows/lifecycle/definitions';
import { paymentState } from '../workflows/payment-outcome/definitions';
import { providerOfStart, unconfiguredProvider, type ProviderName } from '../provider-names';
import { callerOf, identifyCaller, requireScope } from './api-keys';
import { answerWithin } from './answer-wait';
import { ApiError } from './errors';
import { authorizationSchema, paymentCaptureSchema, refundSchema } from '../providers/resources';
import {
  authorizationParams,
  captureBody,
  captureParams,
  errorBody,
  idempotencyHeaders,
  incrementBody,
  lifecycleStateBody,
  orderCompletionBody,
  reauthorizeBody,
  reconcileSummaryBody,
  refundBody,
  startedLifecycleBody,
  startLifecycleBody,
  voidBody,
  voidHeaders,
} from './schemas';

export interface LifecycleRoutesOptions {
  lifecycles: LifecycleClient;
  callers: readonly ApiCaller[];
  /** The providers this deployment runs lifecycles on (PAYMENTS_PROVIDER); unset: any. */
  providers?: readonly ProviderName[];
  /** What a start request leaves out. */
  defaults: Required<Pick<LifecycleInput, 'expiryPolicy' | 'lateEventWindow'>> &
    Pick<
      LifecycleInput,
      'reauthorizeAfter' | 'idempotencyKeyRetention' | 'timerCallTimeout' | 'eventGracePeriod'
    >;
  /** A command's answer within this, else 504 (see answerWithin). */
  answerWaitMs: number;
}

const security = [{ apiKey: [] }];
const errors = {
  400: errorBody,
  401: errorBody,
  403: errorBody,
  404: errorBody,
  409: errorBody,
  413: errorBody,
  415: errorBody,
  422: errorBody,
  503: errorBody,
  504: errorBody,
};

/** `curl -X POST` sends no body and no content type: for a command, that is a command without options. */
async function absentBodyIsEmpty(request: FastifyRequest): Promise<void> {
  request.body ??= {};
}

async function bodyRequired(request: FastifyRequest): Promise<void> {
  if (request.body == null) {
    throw new ApiError(
      'VALIDATION_FAILED',
      'body: a JSON object is required, e.g. {"authorizationId": "..."} with Content-Type: application/json',
    );
  }
}

/** A command's request: its body with the caller's Idempotency-Key, which travels in it from here on. */
function keyedRequest<Body extends object | undefined>(request: {
  body: Body;
  headers: { 'idempotency-key'?: string };
}) {
  return { ...request.body, idempotencyKey: request.headers['idempotency-key'] };
}

/** A command on one lifecycle: the authorization in the path, its Idempotency-Key, a body. */
function commandSchema<Body extends z.ZodType, Answer extends z.ZodType, Headers extends z.ZodType>(
  body: Body,
  answer: Answer,
  headers: Headers,
) {
  return {
    tags: ['lifecycles'],
    security,
    params: authorizationParams,
    headers,
    body,
    response: { 200: answer, ...errors },
  };
}

const reads = requireScope('lifecycles:read');
const writes = requireScope('lifecycles:write');
const operators = requireScope('admin');

/**
 * The HTTP face of the lifecycle for order systems; every route is a thin call of LifecycleClient, in the
 * view of the caller: it sees only the lifecycles it started (an admin sees all).
 */
export const lifecycleRoutes: FastifyPluginAsyncZod<LifecycleRoutesOptions> = async (app, options) => {
  const { defaults } = options;
  const answered = <T>(answer: Promise<T>) => answerWithin(options.answerWaitMs, answer);
  const lifecyclesOf = (request: FastifyRequest) => {
    const caller = callerOf(request);
    return options.lifecycles.forOwner(caller.id, { admin: caller.scopes.includes('admin') });
  };
  // Before the body is read: a caller without a key (or the scope) learns nothing about what it sent.
  app.addHook('onRequest', identifyCaller(options.callers));
  // Bodies here are JSON only: text/plain (which Fastify reads by default) is refused like any other type.
  app.removeContentTypeParser('text/plain');

  app.post(
    '/v1/lifecycles',
    {
      onRequest: writes,
      preValidation: bodyRequired,
      schema: {
        tags: ['lifecycles'],
        security,
        body: startLifecycleBody,
        response: { 200: startedLifecycleBody, 201: startedLifecycleBody, ...errors },
      },
    },
    async (request, reply) => {
      const refusal =
        options.providers && unconfiguredProvider(providerOfStart(request.body), options.providers);
      if (refusal) throw new ApiError('VALIDATION_FAILED', refusal);
      const started = await answered(lifecyclesOf(request).start({ ...defaults, ...request.body }));
      const { created, state, ...answer } = started;
      return reply.code(created ? 201 : 200).send({ ...answer, state: paymentState(state) });
    },
  );

  app.get(
    '/v1/lifecycles/:authorizationId',
    {
      onRequest: reads,
      schema: {
        tags: ['lifecycles'],
        security,
        params: authorizationParams,
        response: { 200: lifecycleStateBody, ...errors },
      },
    },
    async (request) => {
      const state = await lifecyclesOf(request).state(request.params.authorizationId);
      if (!state)
        throw new ApiError('NOT_FOUND', `no lifecycle for authorization ${request.params.authorizationId}`);
      return paymentState(state);
    },
  );

  app.post(
    '/v1/lifecycles/:authorizationId/capture',
    {
      onRequest: writes,
      preValidation: absentBodyIsEmpty,
      schema: commandSchema(captureBody.default({}), paymentCaptureSchema, idempotencyHeaders),
    },
    async (request) =>
      answered(lifecyclesOf(request).capture(request.params.authorizationId, keyedRequest(request))),
  );

  app.post(
    '/v1/lifecycles/:authorizationId/void',
    {
      onRequest: writes,
      preValidation: absentBodyIsEmpty,
      schema: commandSchema(voidBody, authorizationSchema.nullable(), voidHeaders),
    },
    async (request) =>
      answered(lifecyclesOf(request).void(request.params.authorizationId, keyedRequest(request))),
  );

  app.post(
    '/v1/lifecycles/:authorizationId/complete',
    {
      onRequest: writes,
      preValidation: absentBodyIsEmpty,
      schema: commandSchema(voidBody, orderCompletionBody, voidHeaders),
    },
    async (request) =>
      answered(lifecyclesOf(request).complete(request.params.authorizationId, keyedRequest(request))),
  );

  app.post(
    '/v1/lifecycles/:authorizationId/increment',
    { onRequest: writes, schema: commandSchema(incrementBody, authorizationSchema, idempotencyHeaders) },
    async (request) =>
      answered(lifecyclesOf(request).increment(request.params.authorizationId, keyedRequest(request))),
  );

  app.post(
    '/v1/lifecycles/:authorizationId/reauthorize',
    {
      onRequest: writes,
      preValidation: absentBodyIsEmpty,
      schema: commandSchema(reauthorizeBody.default({}), authorizationSchema, idempotencyHeaders),
    },
    async (request) =>
      answered(lifecyclesOf(request).reauthorize(request.params.authorizationId, keyedRequest(request))),
  );

  // An operator's: reads the provider and books what it holds; answers what it booked and the discrepancies.
  app.post(
    '/v1/lifecycles/:authorizationId/reconcile',
    {
      onRequest: operators,
      preValidation: absentBodyIsEmpty,
      schema: {
        tags: ['lifecycles'],
        security,
        params: authorizationParams,
        response: { 200: reconcileSummaryBody, ...errors },
      },
    },
    async (request) => answered(lifecyclesOf(request).reconcile(request.params.authorizationId)),
  );

  app.post(
    '/v1/lifecycles/:authorizationId/captures/:captureId/refund',
    {
      onRequest: writes,
      preValidation: absentBodyIsEmpty,
      schema: {
        ...commandSchema(refundBody.default({}), refundSchema, idempotencyHeaders),
        params: captureParams,
      },
    },
    async (request) =>
      answered(
        lifecyclesOf(request).refund(
          request.params.authorizationId,
          request.params.captureId,
          keyedRequest(request),
        ),
      ),
  );
};
