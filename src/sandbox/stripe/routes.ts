import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SandboxContext } from '../context';
import type { ProviderAnswer } from '../idempotency';
import { answer } from '../replies';
import type { StripeBooks } from './books';
import { invalidRequest, stripeError } from './errors';
import { decodeForm } from './form';
import type { StripeIdempotency } from './idempotency';
import {
  allowOnly,
  boolean,
  enumerated,
  expandsCharge,
  idempotencyKey,
  integer,
  requiredInteger,
  metadata,
  paramsOf,
  type Params,
} from './params';
import { createdFilter, expandsListed, listPage } from './lists';
import { chargeResource, disputeResource, paymentIntentResource, refundResource } from './resources';
import { registerWebhookEndpointRoutes } from './routes-webhook-endpoints';
import type { StripeWebhookEndpoints } from './webhook-endpoints';

export interface StripeRouteContext {
  core: SandboxContext;
  books: StripeBooks;
  idempotency: StripeIdempotency;
  endpoints: StripeWebhookEndpoints;
}

// Stripe's enumerated parameters of the endpoints the sandbox answers, as its OpenAPI document lists them.
const cancellationReasons = ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'] as const;
const refundReasons = ['duplicate', 'fraudulent', 'requested_by_customer'] as const;
const captureMethods = ['automatic', 'automatic_async', 'manual'] as const;
/** What `payment_method_options[card][request_…]` takes: multicapture, overcapture, extended and incremental authorization. */
const featureRequests = ['if_available', 'never'] as const;

/** Every /v1 route needs a secret key as a bearer token, as Stripe's do. */
function requireSecretKey(request: FastifyRequest): void {
  const header = request.headers.authorization ?? '';
  if (!/^Bearer sk_(test|live)_\S+$/.test(header)) {
    throw stripeError(
      401,
      'invalid_request_error',
      'You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth.',
    );
  }
}

/**
 * Stripe's PaymentIntent, charge, refund and webhook endpoint endpoints that a manual-capture integration
 * calls.
 */
export async function registerStripeRoutes(app: FastifyInstance, context: StripeRouteContext): Promise<void> {
  const { core, books, idempotency, endpoints } = context;
  const { faults } = core;
  const intentJson = (id: string, params: Params) => {
    const intent = books.intent(id);
    return paymentIntentResource(intent, expandsCharge(params) ? books.charge(intent.chargeId) : undefined);
  };

  await app.register(async (scope) => {
    // Stripe's bodies are forms whose keys nest (`metadata[invoice_id]`, `expand[0]`).
    scope.removeContentTypeParser('application/x-www-form-urlencoded');
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_request, body, done) => done(null, decodeForm(body as string)),
    );
    scope.addHook('onRequest', async (request) => requireSecretKey(request));

    const keyed = (request: FastifyRequest, operation: () => ProviderAnswer) =>
      idempotency.run(
        idempotencyKey(request),
        { method: request.method, path: request.url.split('?')[0] ?? '', params: request.body ?? {} },
        operation,
      );
    registerWebhookEndpointRoutes(scope, { endpoints, faults, keyed });

    scope.get('/v1/payment_intents/:id', async (request, reply) => {
      const { id } = request.params as { id: string };
      const params = decodeForm(request.url.split('?')[1] ?? '');
      return answer(reply, faults, 'get', () => ({ statusCode: 200, body: intentJson(id, params) }));
    });

    // The intents (a customer's, created when asked), newest first, a page at a time.
    scope.get('/v1/payment_intents', async (request, reply) => {
      const params = decodeForm(request.url.split('?')[1] ?? '');
      return answer(reply, faults, 'get', () => {
        allowOnly(params, ['created', 'customer', 'ending_before', 'expand', 'limit', 'starting_after']);
        const customer = typeof params.customer === 'string' ? params.customer : undefined;
        const created = createdFilter(params);
        const all = books.intentsOf(customer).filter((intent) => created(intent.created));
        const page = listPage(all, params, (id, param) => books.intent(id, param));
        const expand = expandsListed(params, 'latest_charge') ? { expand: ['latest_charge'] } : {};
        return {
          statusCode: 200,
          body: {
            object: 'list',
            data: page.data.map((intent) => intentJson(intent.id, expand)),
            has_more: page.has_more,
            url: '/v1/payment_intents',
          },
        };
      });
    });

    scope.get('/v1/charges/:id', async (request, reply) => {
      const { id } = request.params as { id: string };
      return answer(reply, faults, 'get', () => ({
        statusCode: 200,
        body: chargeResource(books.charge(id)),
      }));
    });

    // A charge's or an intent's refunds or disputes (or all), newest first, a page at a time.
    const listRoute = <T extends { id: string }>(
      url: string,
      all: (filter: { chargeId?: string; intentId?: string }) => T[],
      one: (id: string) => T,
      resource: (record: T) => Record<string, unknown>,
    ) =>
      scope.get(url, async (request, reply) => {
        const params = decodeForm(request.url.split('?')[1] ?? '');
        return answer(reply, faults, 'get', () => {
          allowOnly(params, [
            'charge',
            'payment_intent',
            'limit',
            'starting_after',
            'ending_before',
            'expand',
          ]);
          if (typeof params.charge === 'string') books.charge(params.charge);
          if (typeof params.payment_intent === 'string')
            books.intent(params.payment_intent, 'payment_intent');
          const records = all({
            ...(typeof params.charge === 'string' && { chargeId: params.charge }),
            ...(typeof params.payment_intent === 'string' && { intentId: params.payment_intent }),
          });
          const page = listPage(records, params, (id) => one(id));
          return {
            statusCode: 200,
            body: { object: 'list', data: page.data.map(resource), has_more: page.has_more, url },
          };
        });
      });
    listRoute(
      '/v1/refunds',
      (filter) => books.refundsOf(filter),
      (id) => books.refund(id),
      refundResource,
    );
    listRoute(
      '/v1/disputes',
      (filter) => books.disputesOf(filter),
      (id) => books.dispute(id),
      disputeResource,
    );

    scope.get('/v1/disputes/:id', async (request, reply) => {
      const { id } = request.params as { id: string };
      return answer(reply, faults, 'get', () => ({
        statusCode: 200,
        body: disputeResource(books.dispute(id)),
      }));
    });

    scope.get('/v1/refunds/:id', async (request, reply) => {
      const { id } = request.params as { id: string };
      return answer(reply, faults, 'get', () => ({
        statusCode: 200,
        body: refundResource(books.refund(id)),
      }));
    });

    scope.post('/v1/payment_intents/:id/capture', async (request, reply) => {
      const { id } = request.params as { id: string };
      const params = paramsOf(request);
      return answer(reply, faults, 'capture', () =>
        keyed(request, () => {
          allowOnly(params, ['amount_to_capture', 'final_capture', 'metadata', 'expand']);
          const amount = integer(params, 'amount_to_capture');
          const finalCapture = boolean(params, 'final_capture');
          const intent = books.capture(id, amount, finalCapture);
          Object.assign(intent.metadata, metadata(params));
          return { statusCode: 200, body: intentJson(id, params) };
        }),
      );
    });

    scope.post('/v1/payment_intents/:id/increment_authorization', async (request, reply) => {
      const { id } = request.params as { id: string };
      const params = paramsOf(request);
      return answer(reply, faults, 'increment', () =>
        keyed(request, () => {
          allowOnly(params, ['amount', 'metadata', 'expand']);
          const amount = requiredInteger(params, 'amount');
          const intent = books.incrementAuthorization(id, amount);
          Object.assign(intent.metadata, metadata(params));
          return { statusCode: 200, body: intentJson(id, params) };
        }),
      );
    });

    scope.post('/v1/payment_intents/:id/cancel', async (request, reply) => {
      const { id } = request.params as { id: string };
      const params = paramsOf(request);
      return answer(reply, faults, 'void', () =>
        keyed(request, () => {
          allowOnly(params, ['cancellation_reason', 'expand']);
          const reason = enumerated(params, 'cancellation_reason', cancellationReasons);
          books.cancel(id, reason);
          return { statusCode: 200, body: intentJson(id, params) };
        }),
      );
    });

    // Only what a reauthorization sends: a confirmed, off-session, manual-capture intent on a saved card.
    scope.post('/v1/payment_intents', async (request, reply) => {
      const params = paramsOf(request);
      return answer(reply, faults, 'reauthorize', () =>
        keyed(request, () => {
          allowOnly(params, [
            'amount',
            'currency',
            'customer',
            'payment_method',
            'capture_method',
            'confirm',
            'off_session',
            'payment_method_options',
            'metadata',
            'expand',
          ]);
          const amount = requiredInteger(params, 'amount');
          if (typeof params.currency !== 'string') {
            throw invalidRequest('Missing required param: currency.', 'parameter_missing', 'currency');
          }
          const card = (params.payment_method_options as { card?: Record<string, unknown> } | undefined)
            ?.card;
          const requested = (option: string) =>
            enumerated(params, `payment_method_options[card][${option}]`, featureRequests, card?.[option]) ===
            'if_available';
          const captureMethod = enumerated(params, 'capture_method', captureMethods);
          if (captureMethod !== 'manual' || boolean(params, 'confirm') !== true) {
            throw invalidRequest(
              'The sandbox holds only confirmed manual-capture PaymentIntents (capture_method=manual, confirm=true).',
              'parameter_invalid',
            );
          }
          const intent = books.authorize({
            amount,
            currency: params.currency,
            requests: {
              multicapture: requested('request_multicapture'),
              incremental: requested('request_incremental_authorization'),
              extended: requested('request_extended_authorization'),
              overcapture: requested('request_overcapture'),
            },
            offSession: boolean(params, 'off_session') === true,
            customer: params.customer as string | undefined,
            paymentMethod: params.payment_method as string | undefined,
            metadata: metadata(params),
          });
          return { statusCode: 200, body: intentJson(intent.id, params) };
        }),
      );
    });

    scope.post('/v1/refunds', async (request, reply) => {
      const params = paramsOf(request);
      return answer(reply, faults, 'refund', () =>
        keyed(request, () => {
          allowOnly(params, ['charge', 'payment_intent', 'amount', 'metadata', 'reason', 'expand']);
          enumerated(params, 'reason', refundReasons);
          const chargeId =
            typeof params.charge === 'string'
              ? params.charge
              : typeof params.payment_intent === 'string'
                ? books.intent(params.payment_intent, 'payment_intent').chargeId
                : undefined;
          if (!chargeId) {
            throw invalidRequest(
              'One of the following params should be provided for this request: payment_intent or charge.',
              'parameter_missing',
            );
          }
          const refund = books.createRefund(chargeId, integer(params, 'amount'), metadata(params));
          return { statusCode: 200, body: refundResource(refund) };
        }),
      );
    });
  });
}
