import { randomUUID } from 'node:crypto';
import axios, { type AxiosInstance } from 'axios';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { apiKeyHash, type ApiCaller, type CallerScope } from '../../src/api-callers';
import { EncryptionCodec } from '../../src/codec/payload-encryption';
import { lifecycleWorkflowId } from '../../src/workflows/lifecycle/definitions';
import { eventually } from '../helpers/eventually';
import { freshKey, startTestApi, useLifecycleStack } from '../helpers/lifecycle-stack';
import { TEST_CODEC_KEY } from '../helpers/temporal';

// Callers confined to their own lifecycles, over real HTTP: two order systems, an operator, an admin.
const stack = useLifecycleStack();

const keys = {
  orders: `orders-${randomUUID()}`,
  shop: `shop-${randomUUID()}`,
  ops: `ops-${randomUUID()}`,
  admin: `admin-${randomUUID()}`,
};
type Who = keyof typeof keys;
const scopes: Record<Who, CallerScope[]> = {
  orders: ['lifecycles:write', 'lifecycles:read'],
  shop: ['lifecycles:write', 'lifecycles:read'],
  ops: ['codec'],
  admin: ['admin', 'lifecycles:read', 'lifecycles:write'],
};
const callers: ApiCaller[] = (Object.keys(keys) as Who[]).map((id) => ({
  id,
  scopes: scopes[id],
  keyHashes: [apiKeyHash(keys[id])],
}));

let as: Record<Who, AxiosInstance>;
let closeApi: () => Promise<unknown>;
beforeAll(async () => {
  const { app, url } = await startTestApi({
    lifecycles: stack.lifecycles,
    callers,
    codec: { codec: new EncryptionCodec([TEST_CODEC_KEY]), corsOrigins: [], loopbackUiWithoutKey: false },
  });
  closeApi = () => app.close();
  const client = (who: Who) =>
    axios.create({
      baseURL: url,
      headers: { authorization: `Bearer ${keys[who]}` },
      validateStatus: () => true,
    });
  as = { orders: client('orders'), shop: client('shop'), ops: client('ops'), admin: client('admin') };
});
afterAll(async () => closeApi?.());

/** Authorizes at the sandbox and starts the lifecycle as `who`; answers its authorization id. */
async function startAs(who: Who, value = '100.00', body: Record<string, unknown> = {}): Promise<string> {
  const authorization = await stack.createAuthorization(value);
  const started = await as[who].post('/v1/lifecycles', { authorizationId: authorization.id, ...body });
  expect(started.status).toBe(201);
  return authorization.id;
}

/** Every lifecycle route, as `who`, on one authorization (and capture): status and body of each answer. */
async function everyRoute(who: Who, authorizationId: string, captureId: string, captureKey: string) {
  const path = `/v1/lifecycles/${authorizationId}`;
  const answers = {
    state: await as[who].get(path),
    capture: await as[who].post(`${path}/capture`, { amount: '1.00' }, freshKey()),
    keyedCaptureReplay: await as[who].post(
      `${path}/capture`,
      {},
      { headers: { 'idempotency-key': captureKey } },
    ),
    void: await as[who].post(`${path}/void`, {}, freshKey()),
    reauthorize: await as[who].post(`${path}/reauthorize`, {}, freshKey()),
    refund: await as[who].post(`${path}/captures/${captureId}/refund`, { amount: '1.00' }, freshKey()),
  };
  // The authorization id is in some messages: the same text for any id is what shows no oracle.
  const seen = (answer: { status: number; data: unknown }) => ({
    status: answer.status,
    body: JSON.parse(JSON.stringify(answer.data).replaceAll(authorizationId, '<id>')),
  });
  return Object.fromEntries(Object.entries(answers).map(([route, answer]) => [route, seen(answer)]));
}

describe('a lifecycle is its owner’s', () => {
  it('records the caller that started it as its owner', async () => {
    const authorizationId = await startAs('orders');
    const state = await as.orders.get(`/v1/lifecycles/${authorizationId}`);
    expect(state.status).toBe(200);
    expect(state.data.owner).toBe('orders');
  });

  it('is to another caller, on every route, exactly what an unknown lifecycle is: 404', async () => {
    const authorizationId = await startAs('orders', '100.00', { lateEventWindow: '1 second' });
    const captureKey = randomUUID();
    const capture = await as.orders.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      {},
      { headers: { 'idempotency-key': captureKey } },
    );
    expect(capture.status).toBe(200);
    const captureId = capture.data.id as string;

    const open = await everyRoute('shop', authorizationId, captureId, captureKey);
    const unknown = await everyRoute('shop', `UNKNOWN${randomUUID().slice(0, 8)}`, captureId, captureKey);
    expect(open).toEqual(unknown);
    for (const answer of Object.values(open)) expect(answer.status).toBe(404);
    expect(open.state?.body.error.code).toBe('NOT_FOUND');

    // Closed (after its late-event window): the keyed-answer replay and the reopening refund follow the owner too.
    await eventually(
      async () =>
        (await stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId)).describe()).status.name,
      (status) => status === 'COMPLETED',
      { what: 'the lifecycle closed' },
    );
    const closed = await everyRoute('shop', authorizationId, captureId, captureKey);
    expect(closed).toEqual(unknown);
    const replay = await as.orders.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      {},
      { headers: { 'idempotency-key': captureKey } },
    );
    expect(replay.status).toBe(200);
    expect(replay.data.id).toBe(captureId);
    const refund = await as.orders.post(
      `/v1/lifecycles/${authorizationId}/captures/${captureId}/refund`,
      { amount: '5.00' },
      freshKey(),
    );
    expect(refund.status).toBe(200);
    expect((await as.orders.get(`/v1/lifecycles/${authorizationId}`)).data.owner).toBe('orders');
    // Nothing the other caller sent moved money.
    expect(await stack.capturesAtProvider(authorizationId)).toHaveLength(1);
  });

  it('is refused to another caller by the server alone, while the worker is stopped', async () => {
    const authorizationId = await startAs('orders', '60.00');
    await stack.stopWorker();
    let capture;
    try {
      capture = as.orders.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
      const refused = await as.shop.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
      expect(refused.status).toBe(404);
    } finally {
      await stack.startWorker();
    }
    expect((await capture).status).toBe(200);
    expect(await stack.capturesAtProvider(authorizationId)).toHaveLength(1);
  });

  it('cannot be adopted by a second owner: 409, without its state', async () => {
    const authorizationId = await startAs('orders', '40.00', { orderId: 'order-of-orders' });
    const second = await as.shop.post('/v1/lifecycles', { authorizationId, orderId: 'order-of-shop' });
    expect(second.status).toBe(409);
    expect(second.data.error.code).toBe('AUTHORIZATION_NOT_MANAGEABLE');
    expect(second.data.error.message).toMatch(/managed by another caller/);
    expect(JSON.stringify(second.data)).not.toMatch(/orders|40\.00|workflowId|state/);
    const again = await as.orders.post('/v1/lifecycles', { authorizationId });
    expect(again.status).toBe(200);
    expect(again.data.state.orderId).toBe('order-of-orders');
  });

  it('is seen by an admin, as is a lifecycle started before owners; other callers see neither', async () => {
    const owned = await startAs('orders');
    const admin = await as.admin.get(`/v1/lifecycles/${owned}`);
    expect(admin.status).toBe(200);
    expect(admin.data.owner).toBe('orders');

    // The unconfined client starts as lifecycles did before they had owners.
    const authorization = await stack.createAuthorization('30.00');
    await stack.lifecycles.start({ authorizationId: authorization.id });
    expect((await as.orders.get(`/v1/lifecycles/${authorization.id}`)).status).toBe(404);
    expect((await as.orders.post('/v1/lifecycles', { authorizationId: authorization.id })).status).toBe(409);
    const legacy = await as.admin.get(`/v1/lifecycles/${authorization.id}`);
    expect(legacy.status).toBe(200);
    expect(legacy.data.owner).toBeUndefined();
    const capture = await as.admin.post(
      `/v1/lifecycles/${authorization.id}/capture`,
      { amount: '10.00' },
      freshKey(),
    );
    expect(capture.status).toBe(200);
  });
});

describe('scopes', () => {
  const payload = () => {
    const plain: Payload = defaultPayloadConverter.toPayload({ amount: '61.37' });
    return {
      payloads: [
        {
          metadata: { encoding: Buffer.from(plain.metadata?.encoding ?? []).toString('base64') },
          data: Buffer.from(plain.data ?? []).toString('base64'),
        },
      ],
    };
  };

  it('lets the operator key decrypt on /codec, and refuses it every lifecycle route with 403', async () => {
    const authorizationId = await startAs('orders');
    const encoded = await as.ops.post('/codec/encode', payload());
    expect(encoded.status).toBe(200);
    const decoded = await as.ops.post('/codec/decode', encoded.data);
    expect(decoded.status).toBe(200);
    expect(decoded.data).toEqual(payload());

    const start = await as.ops.post('/v1/lifecycles', { authorizationId: 'ANY' });
    const capture = await as.ops.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
    const read = await as.ops.get(`/v1/lifecycles/${authorizationId}`);
    for (const refused of [start, capture, read]) {
      expect(refused.status).toBe(403);
      expect(refused.data.error.code).toBe('FORBIDDEN');
    }
    expect(capture.data.error.message).toBe(
      'the caller ops lacks the scope lifecycles:write this route needs',
    );
    expect(read.data.error.message).toMatch(/lacks the scope lifecycles:read/);
    expect(await stack.capturesAtProvider(authorizationId)).toHaveLength(0);
  });

  it('lets the order key capture, and refuses it /codec with 403', async () => {
    const authorizationId = await startAs('orders');
    const capture = await as.orders.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
    expect(capture.status).toBe(200);
    for (const operation of ['encode', 'decode']) {
      const refused = await as.orders.post(`/codec/${operation}`, payload());
      expect(refused.status).toBe(403);
      expect(refused.data.error).toEqual({
        code: 'FORBIDDEN',
        message: 'the caller orders lacks the scope codec this route needs',
      });
    }
  });

  it('answers 401 to a key no caller has, before any scope', async () => {
    const stranger = await as.orders.get('/v1/lifecycles/ANY', {
      headers: { authorization: 'Bearer nobody' },
    });
    expect(stranger.status).toBe(401);
    const codec = await as.orders.post('/codec/decode', payload(), {
      headers: { authorization: 'Bearer nobody' },
    });
    expect(codec.status).toBe(401);
  });
});
