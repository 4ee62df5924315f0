import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SandboxContext } from './context';
import { invalidRequest, parseRequest, resourceNotFound } from './errors';
import { eventTypesResponse, isKnownEventType } from './event-types';
import { answer } from './replies';
import { webhookResource, type WebhookChanges } from './webhooks';

// PayPal insists on https; the sandbox also takes http so a listener on localhost can subscribe.
const webhookUrl = z.url({ protocol: /^https?$/ }).max(2048);
const eventTypeList = z
  .array(z.object({ name: z.string().min(1) }))
  .min(1)
  .max(500);

export const createWebhookSchema = z.object({ url: webhookUrl, event_types: eventTypeList });

const webhookPatchSchema = z
  .array(
    z.discriminatedUnion('path', [
      z.object({ op: z.literal('replace'), path: z.literal('/url'), value: webhookUrl }),
      z.object({ op: z.literal('replace'), path: z.literal('/event_types'), value: eventTypeList }),
    ]),
  )
  .min(1);

export const anchorTypeSchema = z.enum(['APPLICATION', 'ACCOUNT']);
// The client always sends anchor_type; empty means the default, the application.
const listQuerySchema = z.object({
  anchor_type: z.preprocess(
    (value) => (value === '' ? undefined : value),
    anchorTypeSchema.default('APPLICATION'),
  ),
});

const idParams = z.object({ id: z.string().min(1).max(64) });

/** Event type names must be ones the sandbox knows, or `*`. */
export function eventTypeNames(list: Array<{ name: string }>, field: string): string[] {
  const unknown = list.findIndex(({ name }) => !isKnownEventType(name));
  if (unknown >= 0) {
    throw invalidRequest([
      {
        field: `${field}/${unknown}/name`,
        location: 'body',
        issue: 'INVALID_EVENT_TYPE',
        description: `Unknown event type ${list[unknown]?.name}; see GET /v1/notifications/webhooks-event-types.`,
      },
    ]);
  }
  return list.map(({ name }) => name);
}

/** Webhook subscriptions, their event types and events (Notifications v1). */
export function registerWebhookRoutes(app: FastifyInstance, context: SandboxContext): void {
  const { webhooks, faults } = context;
  const base = '/v1/notifications/webhooks';
  const ok = (body: unknown, statusCode = 200) => ({ statusCode, body });

  app.post(base, async (request, reply) => {
    const body = parseRequest(createWebhookSchema, request.body);
    const eventTypes = eventTypeNames(body.event_types, '/event_types');
    return answer(reply, faults, 'webhooks', () =>
      ok(webhookResource(webhooks.create(body.url, eventTypes), context.baseUrl()), 201),
    );
  });

  app.get(base, async (request, reply) => {
    const { anchor_type } = parseRequest(listQuerySchema, request.query, 'query');
    return answer(reply, faults, 'webhooks', () =>
      ok({
        webhooks: webhooks.list(anchor_type).map((record) => webhookResource(record, context.baseUrl())),
      }),
    );
  });

  app.get(`${base}/:id`, async (request, reply) => {
    const { id } = parseRequest(idParams, request.params);
    return answer(reply, faults, 'webhooks', () => ok(webhookResource(webhooks.get(id), context.baseUrl())));
  });

  app.patch(`${base}/:id`, async (request, reply) => {
    const { id } = parseRequest(idParams, request.params);
    const patch = parseRequest(webhookPatchSchema, request.body);
    const changes: WebhookChanges = {};
    patch.forEach((operation, index) => {
      if (operation.path === '/url') changes.url = operation.value;
      else changes.eventTypes = eventTypeNames(operation.value, `/${index}/value`);
    });
    return answer(reply, faults, 'webhooks', () =>
      ok(webhookResource(webhooks.update(id, changes), context.baseUrl())),
    );
  });

  app.delete(`${base}/:id`, async (request, reply) => {
    const { id } = parseRequest(idParams, request.params);
    return answer(reply, faults, 'webhooks', () => {
      webhooks.delete(id);
      return { statusCode: 204 };
    });
  });

  app.get('/v1/notifications/webhooks-event-types', async (_request, reply) =>
    answer(reply, faults, 'webhooks', () => ok(eventTypesResponse())),
  );

  app.get('/v1/notifications/webhooks-events/:id', async (request, reply) => {
    const { id } = parseRequest(idParams, request.params);
    return answer(reply, faults, 'webhooks', () => {
      const event = context.deliveries.event(id);
      if (!event) throw resourceNotFound(`Specified resource ID does not exist: event ${id}.`);
      return ok(event);
    });
  });
}
