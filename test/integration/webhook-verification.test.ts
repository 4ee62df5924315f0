import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebhookDelivery } from '../../src/providers/webhook-delivery';
import { VerificationStarter } from '../../src/webhooks/verification-starter';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';
import { freshKey } from '../helpers/lifecycle-stack';

let stack: WebhookStack;

beforeAll(async () => {
  stack = await startWebhookStack();
});
afterAll(async () => {
  await stack?.close();
});

// Bodies a JSON round trip would change: the signature covers the bytes, so only the bytes may be used.
const awkwardBodies: Record<string, string> = {
  'a number written 1.0': `{"id":"WH-${randomUUID()}","event_type":"PAYMENT.SALE.COMPLETED","resource":{"amount":1.0}}`,
  'an integer beyond 2^53': `{"id":"WH-${randomUUID()}","event_type":"PAYMENT.SALE.COMPLETED","resource":{"sequence":9007199254740993123}}`,
  'unicode, raw and escaped': `{"id":"WH-${randomUUID()}","event_type":"PAYMENT.SALE.COMPLETED","resource":{"payer":"Zoë 日本 🚀 \\u00e9\\ud83d\\ude80"}}`,
  'odd key order and whitespace': `{ "resource" : { "z": 1, "a": [ ] },\n  "event_type":"PAYMENT.SALE.COMPLETED",\t"id":"WH-${randomUUID()}" }`,
};

describe.each(['api', 'local'] as const)('verification in %s mode', (mode) => {
  /**
   * A forgery is refused: in api mode its run ends rejected; in local mode the listener checks the signature
   * itself and answers 400, starting no run.
   */
  async function expectRefused(delivery: ReturnType<WebhookStack['sign']>) {
    const response = await stack.deliver(delivery, mode);
    if (mode === 'local') {
      expect(response.status).toBe(400);
      expect(response.data.error).toEqual({
        code: 'WEBHOOK_DELIVERY_INVALID',
        message: 'signature: the signature does not match',
      });
      expect(await stack.verificationExists(delivery.transmissionId)).toBe(false);
      return;
    }
    expect(response.status).toBe(202);
    expect(await stack.verification(delivery.transmissionId)).toMatchObject({
      verification: 'FAILURE',
      outcome: 'rejected',
    });
  }

  it.each(Object.entries(awkwardBodies))('accepts a genuine delivery with %s', async (_name, body) => {
    const delivery = stack.sign(body);
    expect((await stack.deliver(delivery, mode)).status).toBe(202);
    const result = await stack.verification(delivery.transmissionId);
    expect(result).toMatchObject({ verification: 'SUCCESS', outcome: 'unrouted' });
    expect(result.outcome === 'unrouted' && result.reason).toBe(
      'PAYMENT.SALE.COMPLETED concerns no authorization',
    );
  });

  it.each(Object.entries(awkwardBodies))(
    'rejects a delivery with %s whose body was re-serialized',
    async (_name, body) => {
      const signed = stack.sign(body);
      const reserialized = JSON.stringify(JSON.parse(body));
      expect(reserialized).not.toBe(body);
      await expectRefused({ ...signed, body: reserialized });
    },
  );

  it('rejects a delivery signed for another webhook', async () => {
    await expectRefused(stack.sign(awkwardBodies['a number written 1.0']!, { webhookId: 'WH-SOMEONE-ELSE' }));
  });
});

describe('deliveries the sandbox sends', () => {
  it('verify alike in both modes, and fail alike in both once tampered', async () => {
    // A second subscriber records the sandbox's deliveries as they travelled: headers and raw bytes.
    const received: WebhookDelivery<string>[] = [];
    const recorder = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = recorder.address() as AddressInfo;
      const subscribed = await stack.provider.post('/sandbox/webhooks', {
        url: `http://127.0.0.1:${port}/listener`,
        event_types: [{ name: '*' }],
      });
      const recorderWebhookId = subscribed.data.id as string;
      const authorizationId = await stack.startLifecycle('20.00');
      await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, { amount: '5.00' }, freshKey());
      await stack.sandbox.deliveriesSettled();
      await stack.payments.deleteWebhook(recorderWebhookId);
      expect(received.map((delivery) => JSON.parse(delivery.body).event_type)).toEqual(
        expect.arrayContaining(['PAYMENT.AUTHORIZATION.CREATED', 'PAYMENT.CAPTURE.COMPLETED']),
      );

      for (const delivery of received) {
        const tampered = { ...delivery, body: delivery.body.replace('"', ' "') };
        for (const mode of ['api', 'local'] as const) {
          const starter = new VerificationStarter({
            client: stack.client,
            taskQueue: stack.taskQueue,
            mode,
            webhookId: recorderWebhookId,
            provider: 'paypal',
          });
          for (const [sent, expected] of [
            [delivery, 'SUCCESS'],
            [tampered, 'FAILURE'],
          ] as const) {
            const transmissionId = `${mode}-${expected}-${randomUUID()}`;
            await starter.start(transmissionId, sent, new Date());
            expect(await stack.verification(transmissionId)).toMatchObject({ verification: expected });
          }
        }
      }
    } finally {
      await new Promise((resolve) => recorder.close(resolve));
    }
  });
});

describe('certificates in local mode', () => {
  let server: Server;
  const requests: string[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      requests.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'application/x-pem-file' }).end(stack.signing.certificatePem);
    });
    // 127.0.0.2 is loopback too, but its origin is not on the allow-list (only the sandbox's).
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('refuses a cert_url outside the allow-list without fetching it', async () => {
    const { port } = server.address() as AddressInfo;
    const delivery = stack.sign(awkwardBodies['a number written 1.0']!, {
      certUrl: `http://127.0.0.2:${port}/v1/notifications/certs/attacker`,
    });
    // The listener refuses it before any run starts, in either mode.
    for (const mode of ['local', 'api'] as const) {
      const refused = await stack.deliver(delivery, mode);
      expect(refused.status).toBe(400);
      expect(refused.data.error).toEqual({
        code: 'WEBHOOK_DELIVERY_INVALID',
        message: 'SERVICE-CERT-URL: not on an allowed certificate host',
      });
    }
    expect(await stack.verificationExists(delivery.transmissionId)).toBe(false);

    // The run, started without the listener, refuses it too.
    const starter = new VerificationStarter({
      client: stack.client,
      taskQueue: stack.taskQueue,
      mode: 'local',
      provider: 'paypal',
      webhookId: stack.webhookId,
    });
    await starter.start(delivery.transmissionId, delivery, new Date());
    const result = await stack.verification(delivery.transmissionId);
    expect(result).toMatchObject({ outcome: 'rejected', verification: 'FAILURE' });
    expect(result.outcome === 'rejected' && result.reason).toBe(
      `cert_url origin http://127.0.0.2:${port} is not allowed (https on the default port of an allowed host)`,
    );
    expect(requests).toEqual([]);

    // The server does answer, and serves the genuine certificate: only the allow-list kept it from being asked.
    const response = await fetch(`http://127.0.0.2:${port}/certs/probe`);
    expect(await response.text()).toBe(stack.signing.certificatePem);
    expect(requests).toEqual(['/certs/probe']);
  });
});
