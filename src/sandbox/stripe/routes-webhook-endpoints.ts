import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FaultInjector } from '../faults';
import type { ProviderAnswer } from '../idempotency';
import { answer } from '../replies';
import { webhookUrlSchema } from '../webhooks';
import { invalidRequest } from './errors';
import { stripeEnabledEventNames } from './event-names';
import { decodeForm } from './form';
import { allowOnly, boolean, enumerated, integer, metadata, paramsOf, type Params } from './params';
import type { StripeWebhookEndpoints } from './webhook-endpoints';

const enabledEventNames = [...stripeEnabledEventNames];

function requiredText(params: Params, name: string): string {
  const value = params[name];
  if (value === undefined)
    throw invalidRequest(`Missing required param: ${name}.`, 'parameter_missing', name);
  if (typeof value !== 'string') throw invalidRequest(`Invalid ${name}`, 'parameter_invalid', name);
  return value;
}

function optionalText(params: Params, name: string): string | undefined {
  return params[name] === undefined ? undefined : requiredText(params, name);
}

/** `enabled_events[n]`, each one of Stripe's event types or `*`, refused by the index Stripe names. */
function enabledEvents(params: Params): string[] {
  const list = params.enabled_events;
  if (list === undefined) {
    throw invalidRequest('Missing required param: enabled_events.', 'parameter_missing', 'enabled_events');
  }
  if (!Array.isArray(list)) throw invalidRequest('Invalid array', 'parameter_invalid', 'enabled_events');
  return Array.from(list, (name: unknown, index) => {
    const param = `enabled_events[${index}]`;
    if (name === undefined)
      throw invalidRequest(`Missing required param: ${param}.`, 'parameter_missing', param);
    return enumerated(params, param, enabledEventNames, name)!;
  });
}

function webhookUrl(params: Params): string {
  const url = requiredText(params, 'url');
  if (!webhookUrlSchema.safeParse(url).success)
    throw invalidRequest(`Invalid URL: ${url}`, 'url_invalid', 'url');
  return url;
}

/** One page of a list, newest first, between Stripe's cursors (`starting_after`, `ending_before`). */
function page(all: Record<string, unknown>[], params: Params): { data: unknown[]; hasMore: boolean } {
  const limit = integer(params, 'limit') ?? 10;
  if (limit < 1 || limit > 100) {
    throw invalidRequest(
      'This value must be greater than or equal to 1 and less than or equal to 100.',
      'parameter_invalid_integer',
      'limit',
    );
  }
  const at = (param: string) => {
    const id = params[param];
    if (id === undefined) return undefined;
    if (typeof id !== 'string') throw invalidRequest(`Invalid ${param}`, 'parameter_invalid', param);
    const index = all.findIndex((item) => item.id === id);
    if (index < 0) throw invalidRequest(`No such webhook_endpoint: '${id}'`, 'resource_missing', param);
    return index;
  };
  const after = at('starting_after');
  const before = at('ending_before');
  if (before !== undefined) {
    const start = Math.max(0, before - limit);
    return { data: all.slice(start, before), hasMore: start > 0 };
  }
  const start = after === undefined ? 0 : after + 1;
  return { data: all.slice(start, start + limit), hasMore: start + limit < all.length };
}

/**
 * Stripe's /v1/webhook_endpoints (create, list, retrieve, delete), registered inside the /v1 scope that
 * decodes forms and requires a secret key. An endpoint is a subscription of the sandbox's core, so its
 * deliveries are the ones every event makes.
 */
export function registerWebhookEndpointRoutes(
  scope: FastifyInstance,
  context: {
    endpoints: StripeWebhookEndpoints;
    faults: FaultInjector;
    keyed: (request: FastifyRequest, operation: () => ProviderAnswer) => Promise<ProviderAnswer>;
  },
): void {
  const { endpoints, faults, keyed } = context;

  scope.post('/v1/webhook_endpoints', async (request, reply) => {
    const params = paramsOf(request);
    return answer(reply, faults, 'webhooks', () =>
      keyed(request, () => {
        allowOnly(params, [
          'url',
          'enabled_events',
          'description',
          'metadata',
          'api_version',
          'connect',
          'expand',
        ]);
        // The sandbox's events are its own account's: a Connect endpoint would receive none.
        boolean(params, 'connect');
        const endpoint = endpoints.create({
          url: webhookUrl(params),
          enabledEvents: enabledEvents(params),
          description: optionalText(params, 'description'),
          metadata: metadata(params),
          apiVersion: optionalText(params, 'api_version'),
        });
        return { statusCode: 200, body: endpoint };
      }),
    );
  });

  scope.get('/v1/webhook_endpoints', async (request, reply) => {
    const params = decodeForm(request.url.split('?')[1] ?? '');
    return answer(reply, faults, 'webhooks', () => {
      allowOnly(params, ['limit', 'starting_after', 'ending_before', 'expand']);
      const { data, hasMore } = page(endpoints.list(), params);
      return {
        statusCode: 200,
        body: { object: 'list', data, has_more: hasMore, url: '/v1/webhook_endpoints' },
      };
    });
  });

  scope.get('/v1/webhook_endpoints/:id', async (request, reply) => {
    const { id } = request.params as { id: string };
    return answer(reply, faults, 'webhooks', () => ({ statusCode: 200, body: endpoints.retrieve(id) }));
  });

  scope.delete('/v1/webhook_endpoints/:id', async (request, reply) => {
    const { id } = request.params as { id: string };
    return answer(reply, faults, 'webhooks', () => ({ statusCode: 200, body: endpoints.delete(id) }));
  });
}
