import { randomUUID } from 'node:crypto';
import { createPaymentsWorkerActivities } from '../../src/activities';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';
import { defaultApiLimits, type ApiLimits } from '../../src/api/limits';
import { createPayPalProvider } from '../../src/providers/registry';
import { CERTIFICATE_PATH } from '../../src/sandbox/paypal/certificate';
import { WEBHOOK_ROUTE } from '../../src/webhooks/listener-url';
import { VerificationStarter } from '../../src/webhooks/verification-starter';
import { withCrc32 } from '../helpers/crc32-collision';
import { respondJson, startRecordingProvider } from '../helpers/recording-provider';
import { uniqueTaskQueue, withWorker } from '../helpers/temporal';
import { startWebhookStack, voidedEvent, type WebhookStack } from '../helpers/webhook-stack';

let stack: WebhookStack;

beforeAll(async () => {
  stack = await startWebhookStack();
});
afterAll(async () => {
  await stack?.close();
});

const minutes = (count: number) => count * 60_000;
const unroutedEvent = () =>
  JSON.stringify({ id: `WH-${randomUUID()}`, event_type: 'PAYMENT.SALE.COMPLETED' });

/** An API on a free port starting runs on `taskQueue` (the stack's worker by default), with the limits given. */
async function apiWith(limits: Partial<ApiLimits>, taskQueue = stack.taskQueue) {
  return stack.startApi({ taskQueue, limits: { ...defaultApiLimits, ...limits } });
}

/** Writes `text` on a raw connection and waits (at most `waitMs`) for the server to answer and close it. */
function sendAndWait(url: string, text: string, waitMs: number) {
  const { hostname, port } = new URL(url);
  return new Promise<{ answer: string; closedAfterMs?: number }>((resolve) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.write(text));
    const guard = setTimeout(() => {
      socket.destroy();
      resolve({ answer: Buffer.concat(chunks).toString('latin1') });
    }, waitMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(guard);
      resolve({ answer: Buffer.concat(chunks).toString('latin1'), closedAfterMs: Date.now() - started });
    });
  });
}

describe('every unauthenticated route is rate-limited and time-limited', () => {
  it('answers 429 past the per-source limit on health and unknown paths', async () => {
    const api = await apiWith({ rateLimitMax: 3, rateLimitWindowMs: minutes(1) });
    try {
      const statuses: number[] = [];
      for (const path of ['/health', '/health', '/no-such-route', '/health', '/no-such-route']) {
        const answer = await api.http.get(path, { headers: { authorization: undefined } });
        statuses.push(answer.status);
        if (answer.status === 429) {
          expect(answer.data.error).toMatchObject({ code: 'RATE_LIMITED' });
          expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
        }
      }
      expect(statuses).toEqual([200, 200, 404, 429, 429]);
    } finally {
      await api.app.close();
    }
  });

  it('answers 429 past the webhook intake’s own budget, starting nothing, while other routes still answer', async () => {
    const api = await apiWith({ rateLimitMax: 3, webhookRateLimitMax: 3, rateLimitWindowMs: minutes(1) });
    try {
      const post = (delivery: ReturnType<WebhookStack['sign']>) =>
        api.http.post(WEBHOOK_ROUTE, delivery.body, {
          headers: { ...delivery.headers, authorization: undefined },
          transformRequest: (data: unknown) => data,
        });
      const deliveries = [1, 2, 3, 4].map(() => stack.sign(unroutedEvent()));
      const statuses: number[] = [];
      for (const delivery of deliveries) statuses.push((await post(delivery)).status);
      expect(statuses).toEqual([202, 202, 202, 429]);
      expect(await stack.verificationExists(deliveries[3]!.transmissionId)).toBe(false);
      expect((await api.http.get('/health')).status).toBe(200);
    } finally {
      await api.app.close();
    }
  });

  it('answers 408 and closes a connection whose headers do not arrive in time', async () => {
    const api = await apiWith({ headersTimeoutMs: 500, requestTimeoutMs: 1_000 });
    try {
      const slow = await sendAndWait(api.url, `POST ${WEBHOOK_ROUTE} HTTP/1.1\r\nHost: api\r\n`, 5_000);
      expect(slow.answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(slow.closedAfterMs).toBeLessThan(3_000);
    } finally {
      await api.app.close();
    }
  });

  it('answers 408 and closes a connection whose body does not arrive in time', async () => {
    const api = await apiWith({ headersTimeoutMs: 500, requestTimeoutMs: 1_000 });
    try {
      const head = `POST ${WEBHOOK_ROUTE} HTTP/1.1\r\nHost: api\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
      const slow = await sendAndWait(api.url, `${head}{"id":`, 5_000);
      expect(slow.answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(slow.closedAfterMs).toBeLessThan(3_500);
    } finally {
      await api.app.close();
    }
  });
});

describe('a transmission outside the time tolerance is refused before any run starts', () => {
  it('refuses one signed 11 minutes ago or ahead with 400 naming the header, accepts one 9 minutes old', async () => {
    for (const offset of [-11, 11]) {
      const delivery = stack.sign(unroutedEvent(), {
        transmissionTime: new Date(Date.now() + minutes(offset)),
      });
      const response = await stack.deliver(delivery);
      expect(response.status).toBe(400);
      expect(response.data.error.code).toBe('WEBHOOK_DELIVERY_INVALID');
      expect(response.data.error.message).toMatch(
        /^SERVICE-TRANSMISSION-TIME: \d+ s (ago|ahead), outside the tolerance of 600 s$/,
      );
      expect(await stack.verificationExists(delivery.transmissionId)).toBe(false);
    }
    const recent = stack.sign(unroutedEvent(), { transmissionTime: new Date(Date.now() - minutes(9)) });
    expect((await stack.deliver(recent)).status).toBe(202);
    expect(await stack.verification(recent.transmissionId)).toMatchObject({ verification: 'SUCCESS' });
  });

  it('refuses a transmission time that is not a date-time', async () => {
    const delivery = stack.sign(unroutedEvent());
    delivery.headers['SERVICE-TRANSMISSION-TIME'] = 'yesterday';
    const response = await stack.deliver(delivery);
    expect(response.status).toBe(400);
    expect(response.data.error.message).toContain('SERVICE-TRANSMISSION-TIME: not a date-time');
  });
});

describe('a captured signature reused on another body with the same CRC-32', () => {
  it('is refused: outside the tolerance with 400, within it as a duplicate of the verified transmission', async () => {
    const authorizationId = await stack.startLifecycle('10.00');
    const genuineBody = JSON.stringify({
      id: `WH-${randomUUID()}`,
      event_type: 'PAYMENT.AUTHORIZATION.CREATED',
      resource: { id: authorizationId, status: 'CREATED', amount: { currency_code: 'USD', value: '10.00' } },
    });
    // A VOIDED event for the same authorization, its summary adjusted until its CRC-32 is the genuine one's.
    const slot = '@'.repeat(10);
    const forgedBody = withCrc32(
      voidedEvent(authorizationId).replace('voided"', `voided ${slot}"`),
      slot,
      crc32(genuineBody),
    );
    expect(JSON.parse(forgedBody)).toMatchObject({ event_type: 'PAYMENT.AUTHORIZATION.VOIDED' });
    expect(crc32(forgedBody)).toBe(crc32(genuineBody));

    // Captured 11 minutes ago: the signature is genuine for the forged body too, as the provider confirms.
    const captured = stack.sign(genuineBody, { transmissionTime: new Date(Date.now() - minutes(11)) });
    const forged = { ...captured, body: forgedBody };
    expect(await stack.payments.verifyWebhookSignature(forged, stack.webhookId)).toMatchObject({
      verification_status: 'SUCCESS',
    });
    const refused = await stack.deliver(forged);
    expect(refused.status).toBe(400);
    expect(refused.data.error.message).toContain('outside the tolerance');
    expect(await stack.verificationExists(forged.transmissionId)).toBe(false);

    // Within the tolerance the transmission id is already taken by the genuine delivery, verified and kept.
    const fresh = stack.sign(genuineBody);
    expect((await stack.deliver(fresh)).data.status).toBe('accepted');
    expect(await stack.verification(fresh.transmissionId)).toMatchObject({ outcome: 'delivered' });
    const replayed = await stack.deliver({ ...fresh, body: forgedBody });
    expect(replayed.status).toBe(202);
    expect(replayed.data.status).toBe('duplicate');

    expect(await stack.signalsTo(authorizationId)).toBe(1);
    expect((await stack.api.get(`/v1/lifecycles/${authorizationId}`)).data.status).toBe('AUTHORIZED');
  });
});

describe('a refused or failed verification never blocks the genuine delivery', () => {
  it('a tampered body first, then the genuine delivery of the same transmission: verified and applied', async () => {
    const authorizationId = await stack.startLifecycle('10.00');
    const genuine = stack.sign(voidedEvent(authorizationId));
    const tampered = { ...genuine, body: genuine.body.replace('"status":"VOIDED"', '"status": "VOIDED"') };
    expect((await stack.deliver(tampered)).data.status).toBe('accepted');
    expect(await stack.verification(tampered.transmissionId)).toMatchObject({ outcome: 'rejected' });

    const delivered = await stack.deliver(genuine);
    expect(delivered.status).toBe(202);
    expect(delivered.data.status).toBe('accepted');
    expect(await stack.verification(genuine.transmissionId)).toMatchObject({ outcome: 'delivered' });
    expect((await stack.api.get(`/v1/lifecycles/${authorizationId}`)).data.status).toBe('VOIDED');
  });

  it('the genuine delivery while a tampered copy is still verifying is answered 409, then verified', async () => {
    // No worker polls this queue until later: the tampered copy's run stays in progress meanwhile.
    const taskQueue = uniqueTaskQueue('webhook-racing');
    const api = await apiWith({}, taskQueue);
    try {
      const post = (delivery: ReturnType<WebhookStack['sign']>) =>
        api.http.post(WEBHOOK_ROUTE, delivery.body, {
          headers: { ...delivery.headers, authorization: undefined },
          transformRequest: (data: unknown) => data,
        });
      const authorizationId = await stack.startLifecycle('10.00');
      const genuine = stack.sign(voidedEvent(authorizationId));
      const tampered = { ...genuine, body: genuine.body.replace('"status":"VOIDED"', '"status": "VOIDED"') };
      expect((await post(tampered)).data.status).toBe('accepted');
      const early = await post(genuine);
      expect(early.status).toBe(409);
      expect(early.data.error.code).toBe('WEBHOOK_TRANSMISSION_VERIFYING');
      expect(early.headers['retry-after']).toBe('60');

      await withWorker(
        {
          taskQueue,
          activities: createPaymentsWorkerActivities({ provider: stack.port }),
        },
        async () => {
          expect(await stack.verification(tampered.transmissionId)).toMatchObject({ outcome: 'rejected' });
          // The provider delivers again (a non-2xx answer is not an acknowledgement): now it is verified.
          expect((await post(genuine)).data.status).toBe('accepted');
          expect(await stack.verification(genuine.transmissionId)).toMatchObject({ outcome: 'delivered' });
        },
      );
      expect((await stack.api.get(`/v1/lifecycles/${authorizationId}`)).data.status).toBe('VOIDED');
    } finally {
      await api.app.close();
    }
  });

  describe('transient refusals are asked again until they pass', () => {
    let certificateHost: Server;
    let certificateAnswers: number[];

    beforeAll(async () => {
      certificateHost = createServer((request, response) => {
        const status = certificateAnswers.shift() ?? 200;
        if (status !== 200 || request.url !== `${CERTIFICATE_PATH}CERT-transient`) {
          return response.writeHead(status === 200 ? 404 : status).end();
        }
        response
          .writeHead(200, { 'content-type': 'application/x-pem-file' })
          .end(stack.signing.certificatePem);
      });
      await new Promise<void>((resolve) => certificateHost.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      await new Promise((resolve) => certificateHost.close(resolve));
    });

    it('a certificate host answering 429 and 503, and a verify API answering 401, 403 and 404', async () => {
      const certificateOrigin = `http://127.0.0.1:${(certificateHost.address() as AddressInfo).port}`;
      certificateAnswers = [429, 503];
      // The verify API refuses while credentials and the subscription rotate, then answers again.
      const verifyAnswers = [401, 401, 403, 404];
      const provider = await startRecordingProvider((request, response) => {
        if (!request.path.endsWith('/verify-webhook-signature')) return;
        const status = verifyAnswers.shift();
        if (status) respondJson(response, status, { name: `HTTP_${status}`, message: 'not now' });
        else respondJson(response, 200, { verification_status: 'SUCCESS' });
      });
      const payments = createPayPalProvider({
        baseUrl: provider.url,
        credentials: { clientId: 'rotating', clientSecret: 'rotating' },
        timeoutMs: 2_000,
        certificateHosts: [certificateOrigin],
      });
      const taskQueue = uniqueTaskQueue('webhook-transient');
      try {
        await withWorker(
          {
            taskQueue,
            activities: createPaymentsWorkerActivities({ provider: payments }),
          },
          async () => {
            for (const mode of ['local', 'api'] as const) {
              const starter = new VerificationStarter({
                client: stack.client,
                taskQueue,
                mode,
                webhookId: stack.webhookId,
                provider: 'paypal',
              });
              const delivery = stack.sign(unroutedEvent(), {
                certUrl: `${certificateOrigin}${CERTIFICATE_PATH}CERT-transient`,
              });
              await starter.start(delivery.transmissionId, delivery, new Date());
              expect(await stack.verification(delivery.transmissionId)).toMatchObject({
                verification: 'SUCCESS',
                outcome: 'unrouted',
              });
            }
          },
        );
        expect(certificateAnswers).toEqual([]);
        expect(verifyAnswers).toEqual([]);
      } finally {
        await provider.close();
      }
    });
  });
});
