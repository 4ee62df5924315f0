import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import axios from 'axios';

/** One transmission the sandbox sent, held as it arrived: the signed bytes and their headers. */
export interface HeldDelivery {
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The event's type and id, for the run's log. */
  eventType: string;
  eventId: string;
}

/**
 * The listener the sandbox's subscription points at: it answers every transmission 200 at once and holds
 * it, so the model decides when each reaches the service, in which order and how many times. The sandbox's
 * own delivery sends each event once, in order, retrying only refused ones; holding them here adds delay,
 * reordering and duplication without changing what the sandbox signs.
 */
export async function startHeldDeliveries() {
  const held: HeldDelivery[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const event = JSON.parse(body.toString('utf8')) as { id: string; event_type: string };
      held.push({ headers: incoming.headers, body, eventType: event.event_type, eventId: event.id });
      outgoing.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/held`,
    held,
    /** Sends one held transmission, its exact bytes and signature headers, to the service's listener. */
    async forward(delivery: HeldDelivery, listenerUrl: string): Promise<number> {
      const headers = Object.fromEntries(
        Object.entries(delivery.headers).filter(
          ([name]) => !['host', 'content-length', 'connection'].includes(name),
        ),
      );
      const response = await axios.post(listenerUrl, delivery.body, {
        headers,
        transformRequest: (data: unknown) => data,
        validateStatus: () => true,
      });
      return response.status;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type HeldDeliveries = Awaited<ReturnType<typeof startHeldDeliveries>>;
