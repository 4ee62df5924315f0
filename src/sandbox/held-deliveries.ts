import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseRequest } from './errors';
import { webhookUrlSchema } from './webhooks';

/** Where a webhook subscribes to have its transmissions held: the sandbox's own URL plus this path. */
export const HELD_DELIVERIES_PATH = '/sandbox/held-deliveries';

/** One transmission as it arrived: its exact bytes and the headers that sign them. */
interface HeldTransmission {
  eventId: string;
  eventType: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Which held transmissions a release or a discard takes. */
const choiceSchema = z.object({
  /** The oldest first (the order they were sent in) or the newest first (reordered). */
  order: z.enum(['oldest', 'newest']).default('oldest'),
  /** How many to take; all by default. The rest stay held. */
  count: z.number().int().positive().optional(),
});

const releaseSchema = choiceSchema.extend({
  /** The listener the held transmissions go to now. */
  to: webhookUrlSchema,
  /** Each released transmission is sent this many times (duplicated), the same bytes and signature each time. */
  copies: z.number().int().min(1).max(3).default(1),
});

/** A discard: the chosen transmissions are thrown away, never delivered (a provider that gave up on them). */
const discardSchema = choiceSchema;

const forwardedHeaders = (headers: IncomingHttpHeaders) =>
  Object.fromEntries(
    Object.entries(headers).filter(([name]) => !['host', 'content-length', 'connection'].includes(name)),
  );

function send(to: string, transmission: HeldTransmission): Promise<number> {
  return new Promise((resolve) => {
    const request = httpRequest(to, { method: 'POST', headers: forwardedHeaders(transmission.headers) });
    request.on('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', () => resolve(0));
    request.end(transmission.body);
  });
}

function transmissionId(headers: IncomingHttpHeaders): string | undefined {
  const name = Object.keys(headers).find((header) => header.endsWith('-transmission-id'));
  const value = name === undefined ? undefined : headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * A listener inside the sandbox that holds deliveries: a webhook subscribed to `HELD_DELIVERIES_PATH` has each
 * transmission answered 200 and kept, signature and all, until the control API releases it to a real
 * listener: later (delayed), newest first (reordered), or more than once (duplicated), or discards it, never
 * delivered (dropped). A released transmission the listener answers 409 (still verifying an earlier copy) is
 * held again, at the end.
 */
export function registerHeldDeliveryRoutes(app: FastifyInstance): void {
  const held: HeldTransmission[] = [];

  // The transmission's bytes must stay exactly as signed, so this route reads its body raw.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.post(HELD_DELIVERIES_PATH, async (request, reply) => {
      const body = request.body as Buffer;
      // PayPal's events name their type in event_type, Stripe's in type.
      const event = JSON.parse(body.toString('utf8')) as { id?: string; event_type?: string; type?: string };
      held.push({
        eventId: event.id ?? '',
        eventType: event.event_type ?? event.type ?? '',
        headers: request.headers,
        body,
      });
      return reply.code(200).send();
    });
  });

  const listed = (transmission: HeldTransmission) => ({
    eventId: transmission.eventId,
    eventType: transmission.eventType,
    transmissionId: transmissionId(transmission.headers),
  });

  app.get(HELD_DELIVERIES_PATH, async () => ({ held: held.map(listed) }));

  /** Takes the chosen transmissions out of the held ones, in the order they are to go. */
  const take = ({ order, count }: z.infer<typeof choiceSchema>) => {
    const how = count ?? held.length;
    return order === 'oldest' ? held.splice(0, how) : held.splice(Math.max(held.length - how, 0)).reverse();
  };

  app.post(`${HELD_DELIVERIES_PATH}/discard`, async (request) => {
    const choice = parseRequest(discardSchema, request.body ?? {});
    return { discarded: take(choice).map(listed) };
  });

  app.post(`${HELD_DELIVERIES_PATH}/release`, async (request) => {
    const { to, copies, ...choice } = parseRequest(releaseSchema, request.body ?? {});
    const chosen = take(choice);
    const released = [];
    for (const transmission of chosen) {
      const statuses: number[] = [];
      for (let copy = 0; copy < copies; copy += 1) statuses.push(await send(to, transmission));
      if (statuses.includes(409)) held.push(transmission);
      released.push({ ...listed(transmission), statuses });
    }
    return { released };
  });
}
