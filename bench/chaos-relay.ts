import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import axios from 'axios';
import type { TransmissionHeaderNames } from '../src/providers/paypal/dialects';
import { signedDeliveryHeaders } from '../src/providers/paypal/webhook-signature';
import type { SigningCertificate } from '../src/sandbox/paypal/certificate';
import { WEBHOOK_ROUTE } from '../src/webhooks/listener-url';
import { parsePaymentEvent } from '../src/providers/paypal/payment-event';

/** A capture event the provider delivered, and whether the relay sent it a second time. */
export interface RelayedEvent {
  eventId: string;
  eventType: string;
  authorizationId: string;
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

/**
 * The provider's webhook listener for the chaos bench: forwards each delivery byte for byte to the APIs in
 * turn (answering the provider with the API's status, so the provider retries what was refused), and for a
 * share of capture events sends the same event again as a new transmission, signed anew, to the other API.
 */
export async function startDeliveryRelay(options: {
  apiUrls: () => string[];
  signing: SigningCertificate;
  certificateUrl: string;
  webhookId: () => string;
  duplicateRate: number;
  headerNames: TransmissionHeaderNames;
}): Promise<DeliveryRelay> {
  const events = new Map<string, RelayedEvent>();
  const pending = new Set<Promise<void>>();
  let next = 0;
  let unaccepted = 0;

  const post = (apiUrl: string, body: Buffer | string, headers: Record<string, string>) =>
    axios.post(`${apiUrl}${WEBHOOK_ROUTE}`, body, {
      headers,
      transformRequest: (data: unknown) => data,
      validateStatus: () => true,
      timeout: 30_000,
    });

  const duplicate = async (body: string, apiUrl: string) => {
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      const headers = {
        'content-type': 'application/json',
        ...signedDeliveryHeaders({
          transmissionId: randomUUID(),
          transmissionTime: new Date().toISOString(),
          webhookId: options.webhookId(),
          body,
          certUrl: options.certificateUrl,
          privateKeyPem: options.signing.privateKeyPem,
          headerNames: options.headerNames,
        }),
      };
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
      const parsed = parsePaymentEvent(body.toString('utf8'));
      if (
        parsed.routable &&
        parsed.event.eventType.startsWith('PAYMENT.CAPTURE.') &&
        parsed.event.authorizationId !== undefined &&
        !events.has(parsed.event.id)
      ) {
        const duplicated = Math.random() < options.duplicateRate;
        events.set(parsed.event.id, {
          eventId: parsed.event.id,
          eventType: parsed.event.eventType,
          authorizationId: parsed.event.authorizationId,
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
    url: `http://127.0.0.1:${port}${WEBHOOK_ROUTE}`,
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
