import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import axios from 'axios';
import { SANDBOX_STRIPE_WEBHOOK_SECRET } from '../src/config';
import type { ParsedPaymentEvent } from '../src/providers/events';
import type { TransmissionHeaderNames } from '../src/providers/paypal/dialects';
import { parsePaymentEvent } from '../src/providers/paypal/payment-event';
import { signedDeliveryHeaders } from '../src/providers/paypal/webhook-signature';
import { parseStripeEvent } from '../src/providers/stripe/payment-event';
import { STRIPE_SIGNATURE_HEADER, stripeSignatureHeader } from '../src/providers/stripe/webhook-signature';
import type { SigningCertificate } from '../src/sandbox/paypal/certificate';
import { STRIPE_WEBHOOK_ROUTE, WEBHOOK_ROUTE } from '../src/webhooks/listener-url';

/** A capture event the provider delivered, and whether the relay sent it a second time. */
export interface RelayedEvent {
  eventId: string;
  eventType: string;
  authorizationId: string;
  /** The capture the event reports. */
  captureId?: string;
  duplicated: boolean;
  /** When the provider's first transmission of it reached the relay. */
  firstSeenAt: Date;
}

export interface DeliveryRelay {
  url: string;
  events: Map<string, RelayedEvent>;
  /** Duplicates that no API accepted in time. */
  duplicatesUnaccepted(): number;
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** How the relay reads and signs one provider's deliveries. */
export interface RelayedProvider {
  /** Where the APIs take this provider's deliveries. */
  route: string;
  /** The provider's own type of the event a capture emits, as its delivery log names it. */
  captureEventType: string;
  parse(body: string): ParsedPaymentEvent;
  /** The signature headers of a new transmission of `body`, as the provider would sign it. */
  sign(body: string): Record<string, string>;
}

/** PayPal's deliveries: a transmission signed with the sandbox's certificate, in the dialect's headers. */
export function paypalRelaying(options: {
  signing: SigningCertificate;
  certificateUrl: string;
  webhookId: () => string;
  headerNames: TransmissionHeaderNames;
}): RelayedProvider {
  return {
    route: WEBHOOK_ROUTE,
    captureEventType: 'PAYMENT.CAPTURE.COMPLETED',
    parse: parsePaymentEvent,
    sign: (body) =>
      signedDeliveryHeaders({
        transmissionId: randomUUID(),
        transmissionTime: new Date().toISOString(),
        webhookId: options.webhookId(),
        body,
        certUrl: options.certificateUrl,
        privateKeyPem: options.signing.privateKeyPem,
        headerNames: options.headerNames,
      }),
  };
}

/** Stripe's deliveries: Stripe-Signature over the body at the current time, with the sandbox's secret. */
export function stripeRelaying(): RelayedProvider {
  return {
    route: STRIPE_WEBHOOK_ROUTE,
    captureEventType: 'charge.captured',
    parse: parseStripeEvent,
    sign: (body) => ({
      [STRIPE_SIGNATURE_HEADER]: stripeSignatureHeader(
        body,
        [SANDBOX_STRIPE_WEBHOOK_SECRET],
        Math.floor(Date.now() / 1000),
      ),
    }),
  };
}

/**
 * The provider's webhook listener for the chaos bench: forwards each delivery byte for byte to the APIs in
 * turn (answering the provider with the API's status, so the provider retries what was refused), and for a
 * share of capture events sends the same event again as a new transmission, signed anew, to the other API.
 */
export async function startDeliveryRelay(options: {
  apiUrls: () => string[];
  provider: RelayedProvider;
  duplicateRate: number;
}): Promise<DeliveryRelay> {
  const { provider } = options;
  const events = new Map<string, RelayedEvent>();
  const pending = new Set<Promise<void>>();
  let next = 0;
  let unaccepted = 0;

  const post = (apiUrl: string, body: Buffer | string, headers: Record<string, string>) =>
    axios.post(`${apiUrl}${provider.route}`, body, {
      headers,
      transformRequest: (data: unknown) => data,
      validateStatus: () => true,
      timeout: 30_000,
    });

  const duplicate = async (body: string, apiUrl: string) => {
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      const headers = { 'content-type': 'application/json', ...provider.sign(body) };
      const response = await post(apiUrl, body, headers).catch(() => undefined);
      if (response?.status === 202) return;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    unaccepted += 1;
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const apis = options.apiUrls();
      const target = next++ % apis.length;
      const parsed = provider.parse(body.toString('utf8'));
      if (
        parsed.routable &&
        parsed.event.eventType.startsWith('capture.') &&
        parsed.event.authorizationId !== undefined &&
        !events.has(parsed.event.id)
      ) {
        const duplicated = Math.random() < options.duplicateRate;
        events.set(parsed.event.id, {
          eventId: parsed.event.id,
          eventType: parsed.event.eventType,
          authorizationId: parsed.event.authorizationId,
          captureId: parsed.event.captureId,
          duplicated,
          firstSeenAt: new Date(),
        });
        if (duplicated) {
          const sent = duplicate(body.toString('utf8'), apis[(target + 1) % apis.length] as string);
          pending.add(sent);
          void sent.finally(() => pending.delete(sent));
        }
      }
      post(apis[target] as string, body, forwardedHeaders(request.headers))
        .then((answer) => response.writeHead(answer.status).end())
        .catch(() => response.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${provider.route}`,
    events,
    duplicatesUnaccepted: () => unaccepted,
    settled: async () => {
      await Promise.all([...pending]);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') continue;
    if (['host', 'content-length', 'connection'].includes(name)) continue;
    kept[name] = value;
  }
  return kept;
}
