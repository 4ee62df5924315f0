import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseRequest, resourceNotFound } from '../errors';
import { answer } from '../replies';
import {
  anchorTypeSchema,
  eventTypeListSchema,
  webhookSubscriptionSchema,
  webhookUrlSchema,
  type WebhookChanges,
} from '../webhooks';
import type { PaypalContext } from './context';
import { eventTypeNames, eventTypesResponse } from './event-types';
import { webhookResource } from './resources';

const webhookPatchSchema = z
  .array(
    z.discriminatedUnion('path', [
      z.object({ op: z.literal('replace'), path: z.literal('/url'), value: webhookUrlSchema }),
      z.object({ op: z.literal('replace'), path: z.literal('/event_types'), value: eventTypeListSchema }),
    ]),
  )
  .min(1);

// The client always sends anchor_type; empty means the default, the application.
const listQuerySchema = z.object({
  anchor_type: z.preprocess(
    (value) => (value === '' ? undefined : value),
    anchorTypeSchema.default('APPLICATION'),
  ),
});

const idParams = z.object({ id: z.string().min(1).max(64) });

/** Webhook subscriptions, their event types and events (Notifications v1). */
export function registerWebhookRoutes(app: FastifyInstance, context: PaypalContext): void {
  const { webhooks, faults } = context;
  const base = '/v1/notifications/webhooks';
  const ok = (body: unknown, statusCode = 200) => ({ statusCode, body });

  app.post(base, async (request, reply) => {
    const body = parseRequest(webhookSubscriptionSchema, request.body);
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
