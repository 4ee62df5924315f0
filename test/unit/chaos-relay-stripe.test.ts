import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startDeliveryRelay, stripeRelaying, type DeliveryRelay } from '../../bench/chaos-relay';
import { SANDBOX_STRIPE_WEBHOOK_SECRET } from '../../src/config';
import { stripeSignatureHeader, verifyStripeSignature } from '../../src/providers/stripe/webhook-signature';
import { STRIPE_WEBHOOK_ROUTE } from '../../src/webhooks/listener-url';

// bench:chaos with BENCH_PROVIDER=stripe: the relay forwards Stripe's deliveries to the APIs' Stripe intake and
// sends a share of capture events again, as a new transmission Stripe's signature check accepts.

interface Received {
  api: number;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const capturedCharge = (eventId: string) =>
  JSON.stringify({
    id: eventId,
    object: 'event',
    type: 'charge.captured',
    created: 1_790_000_000,
    data: {
      object: {
        id: 'ch_1',
        object: 'charge',
        amount_captured: 1000,
        currency: 'usd',
        payment_intent: 'pi_1',
        created: 1_790_000_000,
      },
    },
  });

describe('the chaos relay, Stripe', () => {
  const received: Received[] = [];
  let apis: Server[] = [];
  let relay: DeliveryRelay;

  const startApi = (index: number) =>
    new Promise<Server>((resolve) => {
      const server = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          received.push({
            api: index,
            path: request.url ?? '',
            headers: request.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          });
          response.writeHead(202).end();
        });
      });
      server.listen(0, '127.0.0.1', () => resolve(server));
    });

  const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const deliver = (body: string) =>
    fetch(relay.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': stripeSignatureHeader(
          body,
          [SANDBOX_STRIPE_WEBHOOK_SECRET],
          Math.floor(Date.now() / 1000),
        ),
      },
      body,
    });

  beforeAll(async () => {
    apis = [await startApi(0), await startApi(1)];
    relay = await startDeliveryRelay({
      apiUrls: () => apis.map(urlOf),
      provider: stripeRelaying(),
      duplicateRate: 1,
    });
  });

  afterAll(async () => {
    await relay.close();
    for (const api of apis) await new Promise((resolve) => api.close(resolve));
  });

  test('forwards a capture to /webhooks/stripe and sends it again to the other API, signed as Stripe signs', async () => {
    const body = capturedCharge('evt_capture_1');
    const answer = await deliver(body);
    expect(answer.status).toBe(202);
    await relay.settled();

    expect(received.map(({ api, path }) => ({ api, path }))).toEqual(
      expect.arrayContaining([
        { api: 0, path: STRIPE_WEBHOOK_ROUTE },
        { api: 1, path: STRIPE_WEBHOOK_ROUTE },
      ]),
    );
    expect(received).toHaveLength(2);
    for (const delivery of received) {
      expect(delivery.body).toBe(body);
      const check = verifyStripeSignature({ headers: delivery.headers, body: delivery.body }, [
        SANDBOX_STRIPE_WEBHOOK_SECRET,
      ]);
      expect(check).toEqual({ verification_status: 'SUCCESS' });
    }
    expect(relay.events.get('evt_capture_1')).toMatchObject({
      eventType: 'capture.completed',
      authorizationId: 'pi_1',
      duplicated: true,
    });
    expect(relay.duplicatesUnaccepted()).toBe(0);
  });

  test('forwards other events once and records none of them', async () => {
    received.length = 0;
    const body = JSON.stringify({
      id: 'evt_held_1',
      object: 'event',
      type: 'payment_intent.amount_capturable_updated',
      created: 1_790_000_000,
      data: {
        object: {
          id: 'pi_2',
          object: 'payment_intent',
          amount: 1000,
          amount_received: 0,
          currency: 'usd',
          created: 1_790_000_000,
        },
      },
    });
    expect((await deliver(body)).status).toBe(202);
    await relay.settled();
    expect(received).toHaveLength(1);
    expect(relay.events.has('evt_held_1')).toBe(false);
  });
});
