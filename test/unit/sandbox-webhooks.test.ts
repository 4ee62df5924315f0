import axios from 'axios';
import { specDialect } from '../../src/providers/paypal/dialects';
import type { WebhookDelivery } from '../../src/providers/webhook-delivery';
import { webhookVerificationRequestBody } from '../../src/providers/paypal/webhook-verification-request';
import { verifyTransmission } from '../../src/providers/paypal/webhook-signature';
import {
  anyString,
  authorizationPath,
  createAuthorization,
  firstIssue,
  postVerifyRequest,
  startHarness,
  startWebhookListener,
  usd,
  withHarness,
  type SandboxHarness,
  type WebhookListener,
} from '../helpers/sandbox-fixtures';
const hooks = '/v1/notifications/webhooks';
const eventTypes = (...names: string[]) => names.map((name) => ({ name }));

interface WebhookBody {
  id: string;
  url: string;
  event_types: Array<{ name: string; description?: string }>;
  links: Array<{ rel: string; method: string }>;
}

function header(delivery: WebhookDelivery, name: string): string {
  const value = delivery.headers[name];
  if (typeof value !== 'string') throw new Error(`delivery has no ${name} header`);
  return value;
}

/** The verify request of spec 2.3, with the delivery body (or `body` instead) spliced in byte for byte. */
function verifyRequestBody(delivery: WebhookDelivery, webhookId: string, body = delivery.body): Buffer {
  return webhookVerificationRequestBody({ ...delivery, body }, webhookId, specDialect.transmissionHeaders);
}

describe('payments sandbox: webhook management', () => {
  let harness: SandboxHarness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(() => harness.close());

  it('creates, reads, lists by anchor type, patches and deletes a webhook', async () => {
    const created = await harness.api.post(hooks, {
      url: 'https://merchant.example/hooks/a',
      event_types: eventTypes('PAYMENT.CAPTURE.COMPLETED'),
    });
    expect(created.status).toBe(201);
    const webhook = created.data as WebhookBody;
    expect(webhook).toMatchObject({
      url: 'https://merchant.example/hooks/a',
      event_types: [{ name: 'PAYMENT.CAPTURE.COMPLETED', description: anyString }],
    });
    expect(webhook.links.map((link) => `${link.rel} ${link.method}`)).toEqual([
      'self GET',
      'update PATCH',
      'delete DELETE',
    ]);
    expect((await harness.api.get(`${hooks}/${webhook.id}`)).data).toEqual(webhook);

    const account = await harness.anonymous.post('/sandbox/webhooks', {
      url: 'https://merchant.example/hooks/account',
      event_types: eventTypes('*'),
      anchor_type: 'ACCOUNT',
    });
    expect(account.status).toBe(201);
    const ids = async (query: string) =>
      ((await harness.api.get(`${hooks}${query}`)).data as { webhooks: WebhookBody[] }).webhooks.map(
        (hook) => hook.id,
      );
    expect(await ids('?anchor_type=APPLICATION')).toEqual([webhook.id]);
    expect(await ids('?anchor_type=')).toEqual([webhook.id]);
    expect(await ids('')).toEqual([webhook.id]);
    expect(await ids('?anchor_type=ACCOUNT')).toEqual([(account.data as WebhookBody).id]);
    expect((await harness.api.get(`${hooks}?anchor_type=PLANET`)).status).toBe(400);

    const patched = await harness.api.patch(`${hooks}/${webhook.id}`, [
      { op: 'replace', path: '/url', value: 'https://merchant.example/hooks/b' },
      { op: 'replace', path: '/event_types', value: eventTypes('PAYMENT.AUTHORIZATION.VOIDED', '*') },
    ]);
    expect(patched.status).toBe(200);
    expect(patched.data).toMatchObject({
      id: webhook.id,
      url: 'https://merchant.example/hooks/b',
      event_types: [{ name: 'PAYMENT.AUTHORIZATION.VOIDED' }, { name: '*', description: 'ALL' }],
    });
    expect((await harness.api.get(`${hooks}/${webhook.id}`)).data).toMatchObject({
      url: 'https://merchant.example/hooks/b',
    });

    const deleted = await harness.api.delete(`${hooks}/${webhook.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.data).toBe('');
    const gone = await harness.api.get(`${hooks}/${webhook.id}`);
    expect(gone.status).toBe(404);
    expect(gone.data).toMatchObject({
      name: 'RESOURCE_NOT_FOUND',
      details: [{ issue: 'INVALID_RESOURCE_ID' }],
    });
    expect((await harness.api.delete(`${hooks}/${webhook.id}`)).status).toBe(404);
  });

  it('refuses bad webhook requests: unknown event type, bad patch, repeated URL, bad URL', async () => {
    const unknown = await harness.api.post(hooks, {
      url: 'https://merchant.example/hooks/c',
      event_types: eventTypes('PAYMENT.CAPTURE.COMPLETED', 'PAYMENT.TELEPORTED'),
    });
    expect(unknown.status).toBe(400);
    expect(unknown.data).toMatchObject({
      details: [{ field: '/event_types/1/name', issue: 'INVALID_EVENT_TYPE' }],
    });

    const created = await harness.api.post(hooks, {
      url: 'https://merchant.example/hooks/c',
      event_types: eventTypes('*'),
    });
    const id = (created.data as WebhookBody).id;
    const repeated = await harness.api.post(hooks, {
      url: 'https://merchant.example/hooks/c',
      event_types: eventTypes('*'),
    });
    expect(repeated.status).toBe(400);
    expect(repeated.data).toMatchObject({ name: 'WEBHOOK_URL_ALREADY_EXISTS' });

    for (const patch of [
      [{ op: 'add', path: '/url', value: 'https://merchant.example/x' }],
      [{ op: 'replace', path: '/id', value: 'X' }],
      [{ op: 'replace', path: '/url', value: 'not a url' }],
      [],
      { op: 'replace', path: '/url', value: 'https://merchant.example/x' },
    ]) {
      const response = await harness.api.patch(`${hooks}/${id}`, patch);
      expect([response.status, (response.data as { name: string }).name]).toEqual([400, 'INVALID_REQUEST']);
    }
    expect((await harness.api.get(`${hooks}/${id}`)).data).toMatchObject({
      url: 'https://merchant.example/hooks/c',
    });
    expect(
      (await harness.api.post(hooks, { url: 'ftp://merchant.example', event_types: eventTypes('*') })).status,
    ).toBe(400);
    await harness.api.delete(`${hooks}/${id}`);
  });

  it('lists the event types it can deliver', async () => {
    const response = await harness.api.get('/v1/notifications/webhooks-event-types');
    expect(response.status).toBe(200);
    const names = (response.data as { event_types: Array<{ name: string }> }).event_types.map(
      (type) => type.name,
    );
    expect(names).toEqual([
      'PAYMENT.AUTHORIZATION.CREATED',
      'PAYMENT.AUTHORIZATION.VOIDED',
      'PAYMENT.CAPTURE.COMPLETED',
      'PAYMENT.CAPTURE.DECLINED',
      'PAYMENT.CAPTURE.DENIED',
      'PAYMENT.CAPTURE.PENDING',
      'PAYMENT.CAPTURE.REFUNDED',
      'PAYMENT.CAPTURE.REVERSED',
    ]);
  });

  it('needs a bearer token', async () => {
    expect((await harness.anonymous.get(hooks)).status).toBe(401);
    expect((await harness.anonymous.post('/v1/notifications/verify-webhook-signature', {})).status).toBe(401);
  });
});

describe('payments sandbox: signed webhook deliveries', () => {
  let harness: SandboxHarness;
  let listener: WebhookListener;
  let webhookId: string;
  beforeAll(async () => {
    harness = await startHarness({ deliveryRetry: { attempts: 3, initialDelayMs: 20 } });
    listener = await startWebhookListener();
  });
  afterAll(async () => {
    await harness.close();
    await listener.close();
  });
  beforeEach(async () => {
    listener.received.length = 0;
    const created = await harness.api.post(hooks, {
      url: listener.url,
      event_types: eventTypes('PAYMENT.CAPTURE.COMPLETED', 'PAYMENT.AUTHORIZATION.VOIDED'),
    });
    webhookId = (created.data as WebhookBody).id;
  });
  afterEach(async () => {
    await harness.api.delete(`${hooks}/${webhookId}`);
    await harness.sandbox.deliveriesSettled();
  });

  const verifyAtSandbox = async (body: Buffer) =>
    (await postVerifyRequest(harness, body)).data as { verification_status: string };

  it('delivers a capture event, signed so that both local checking and the verify endpoint accept it', async () => {
    const { id } = await createAuthorization(harness);
    const capture = await harness.api.post(authorizationPath(id, 'capture'), {
      amount: usd('12.50'),
    });
    const [delivery] = await listener.waitFor(1);
    if (!delivery) throw new Error('no delivery');

    const event = JSON.parse(delivery.body.toString('utf8')) as Record<string, unknown>;
    expect(event).toMatchObject({
      event_version: '1.0',
      resource_type: 'capture',
      event_type: 'PAYMENT.CAPTURE.COMPLETED',
      summary: 'Payment completed for 12.50 USD',
      resource: { id: (capture.data as { id: string }).id, status: 'COMPLETED', amount: usd('12.50') },
    });
    expect(event.id).toMatch(/^WH-/);
    expect(header(delivery, 'service-auth-algo')).toBe('SHA256withRSA');
    expect(header(delivery, 'service-transmission-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isNaN(Date.parse(header(delivery, 'service-transmission-time')))).toBe(false);

    const certificate = await axios.get<string>(header(delivery, 'service-cert-url'), {
      responseType: 'text',
    });
    expect(certificate.data).toContain('BEGIN CERTIFICATE');
    const local = {
      authAlgo: header(delivery, 'service-auth-algo'),
      transmissionId: header(delivery, 'service-transmission-id'),
      transmissionTime: header(delivery, 'service-transmission-time'),
      transmissionSig: header(delivery, 'service-transmission-sig'),
      webhookId,
      body: delivery.body,
      certificatePem: certificate.data,
    };
    expect(verifyTransmission(local)).toBe(true);
    expect(verifyTransmission({ ...local, webhookId: 'SOMEONE-ELSE' })).toBe(false);

    expect(await verifyAtSandbox(verifyRequestBody(delivery, webhookId))).toEqual({
      verification_status: 'SUCCESS',
    });
    expect(await verifyAtSandbox(verifyRequestBody(delivery, 'SOMEONE-ELSE'))).toEqual({
      verification_status: 'FAILURE',
    });
  });

  it('says FAILURE for a tampered body, locally and at the verify endpoint', async () => {
    const { id } = await createAuthorization(harness);
    await harness.api.post(authorizationPath(id, 'void'));
    const [delivery] = await listener.waitFor(1);
    if (!delivery) throw new Error('no delivery');
    expect(JSON.parse(delivery.body.toString('utf8'))).toMatchObject({
      event_type: 'PAYMENT.AUTHORIZATION.VOIDED',
      resource_type: 'authorization',
      resource: { id, status: 'VOIDED' },
    });
    const tampered = Buffer.from(delivery.body.toString('utf8').replace('"VOIDED"', '"CREATED"'));
    expect(tampered.equals(delivery.body)).toBe(false);
    expect(await verifyAtSandbox(verifyRequestBody(delivery, webhookId, tampered))).toEqual({
      verification_status: 'FAILURE',
    });
    const pem = (await axios.get<string>(header(delivery, 'service-cert-url'), { responseType: 'text' }))
      .data;
    expect(
      verifyTransmission({
        transmissionId: header(delivery, 'service-transmission-id'),
        transmissionTime: header(delivery, 'service-transmission-time'),
        transmissionSig: header(delivery, 'service-transmission-sig'),
        webhookId,
        body: tampered,
        certificatePem: pem,
      }),
    ).toBe(false);
  });

  it('delivers only the event types a webhook subscribed to', async () => {
    const { id } = await createAuthorization(harness);
    await harness.api.post(authorizationPath(id, 'reauthorize'), {});
    await harness.sandbox.deliveriesSettled();
    expect(listener.received).toHaveLength(0);
    const log = await harness.anonymous.get('/sandbox/deliveries', { params: { webhook_id: webhookId } });
    expect((log.data as { deliveries: unknown[] }).deliveries).toHaveLength(0);
  });

  it('emits PENDING then COMPLETED for a capture the bank settles later, and DENIED for a declined one', async () => {
    await harness.api.patch(`${hooks}/${webhookId}`, [
      { op: 'replace', path: '/event_types', value: eventTypes('*') },
    ]);
    const pending = await createAuthorization(harness, { capture_status: 'PENDING' });
    const capture = await harness.api.post(authorizationPath(pending.id, 'capture'), {});
    expect(capture.data).toMatchObject({ status: 'PENDING', status_details: { reason: 'PENDING_REVIEW' } });
    const captureId = (capture.data as { id: string }).id;
    const completed = await harness.anonymous.post(`/sandbox/captures/${captureId}/complete`);
    expect(completed.data).toMatchObject({ id: captureId, status: 'COMPLETED' });
    expect((await harness.anonymous.post(`/sandbox/captures/${captureId}/complete`)).status).toBe(422);

    const declined = await createAuthorization(harness, { capture_status: 'DECLINED' });
    const refused = await harness.api.post(authorizationPath(declined.id, 'capture'), {});
    expect(refused.data).toMatchObject({ status: 'DECLINED' });
    expect((await harness.api.get(authorizationPath(declined.id))).data).toMatchObject({
      status: 'CREATED',
    });

    const received = await listener.waitFor(5);
    const types = received.map(
      (delivery) => (JSON.parse(delivery.body.toString('utf8')) as { event_type: string }).event_type,
    );
    expect(types.sort()).toEqual([
      'PAYMENT.AUTHORIZATION.CREATED',
      'PAYMENT.AUTHORIZATION.CREATED',
      'PAYMENT.CAPTURE.COMPLETED',
      'PAYMENT.CAPTURE.DENIED',
      'PAYMENT.CAPTURE.PENDING',
    ]);
  });

  it('retries a delivery the listener refused as a new transmission, and logs each attempt', async () => {
    listener.answerWith(500, 503);
    const { id } = await createAuthorization(harness);
    await harness.api.post(authorizationPath(id, 'capture'), {});
    const received = await listener.waitFor(3);
    // Each attempt has its own id, time and signature over the same body (the same event id).
    for (const name of ['service-transmission-id', 'service-transmission-time', 'service-transmission-sig']) {
      expect(new Set(received.map((delivery) => header(delivery, name))).size).toBe(3);
    }
    const transmissionIds = received.map((delivery) => header(delivery, 'service-transmission-id'));
    expect(received[2]?.body.equals(received[0]?.body ?? Buffer.alloc(0))).toBe(true);

    await harness.sandbox.deliveriesSettled();
    const log = await harness.anonymous.get('/sandbox/deliveries', { params: { webhook_id: webhookId } });
    const [entry] = (log.data as { deliveries: Array<Record<string, unknown>> }).deliveries;
    expect(entry).toMatchObject({
      eventType: 'PAYMENT.CAPTURE.COMPLETED',
      webhookId,
      url: listener.url,
      transmissionId: transmissionIds[2],
      lastStatus: 200,
      delivered: true,
      gaveUp: false,
    });
    expect(entry?.attempts).toEqual(
      [500, 503, 200].map((statusCode, index) =>
        expect.objectContaining({ statusCode, transmissionId: transmissionIds[index] }),
      ),
    );
  });

  it('gives up after the configured attempts', async () => {
    listener.answerWith(500, 500, 500);
    const { id } = await createAuthorization(harness);
    await harness.api.post(authorizationPath(id, 'capture'), {});
    await listener.waitFor(3);
    await harness.sandbox.deliveriesSettled();
    const entry = harness.sandbox.deliveries().find((delivery) => delivery.webhookId === webhookId);
    expect(entry).toMatchObject({ delivered: false, gaveUp: true, lastStatus: 500 });
    expect(entry?.attempts).toHaveLength(3);
  });
});

describe('payments sandbox: delivery to an unreachable listener', () => {
  it('records network errors as failed attempts', async () => {
    await withHarness({ deliveryRetry: { attempts: 2, initialDelayMs: 10 } }, async (harness) => {
      const listener = await startWebhookListener();
      const url = listener.url;
      await listener.close();
      await harness.api.post(hooks, { url, event_types: eventTypes('PAYMENT.AUTHORIZATION.CREATED') });
      await createAuthorization(harness);
      await harness.sandbox.deliveriesSettled();
      const [entry] = harness.sandbox.deliveries();
      expect(entry).toMatchObject({ delivered: false, gaveUp: true, lastStatus: null, lastError: anyString });
      expect(entry?.attempts).toHaveLength(2);
    });
  });
});

describe('payments sandbox: verify endpoint input', () => {
  let harness: SandboxHarness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(() => harness.close());

  const post = (raw: string) => postVerifyRequest(harness, raw);

  it('refuses a body that is not JSON, or lacks webhook_event or a signature field', async () => {
    const fields = {
      auth_algo: 'SHA256withRSA',
      cert_url: `${harness.sandbox.certificateUrl}`,
      transmission_id: 't',
      transmission_sig: 'c2ln',
      transmission_time: '2026-01-01T00:00:00Z',
      webhook_id: 'W',
    };
    const notJson = await post('{"auth_algo":');
    expect([notJson.status, firstIssue(notJson.data)]).toEqual([400, 'MALFORMED_REQUEST_JSON']);
    const noEvent = await post(JSON.stringify(fields));
    expect(noEvent.data).toMatchObject({
      details: [{ field: '/webhook_event', issue: 'MISSING_REQUIRED_PARAMETER' }],
    });
    const { transmission_sig: _omitted, ...unsigned } = fields;
    const noSignature = await post(JSON.stringify({ ...unsigned, webhook_event: {} }));
    expect(noSignature.data).toMatchObject({
      details: [{ field: '/transmission_sig', issue: 'MISSING_REQUIRED_PARAMETER' }],
    });
    const forged = await post(JSON.stringify({ ...fields, webhook_event: { id: 'WH-1' } }));
    expect(forged.data).toEqual({ verification_status: 'FAILURE' });
  });
});
