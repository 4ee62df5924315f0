import { randomUUID } from 'node:crypto';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { toApiError } from '../../src/api/errors';
import { LifecycleFailure } from '../../src/workflows/lifecycle/definitions';
import { freshKey, useLifecycleStack } from '../helpers/lifecycle-stack';
import { startRecordingProxy, type Exchange } from '../helpers/recording-proxy';

// Keys and identifiers at the edges, over real HTTP, the dev server and the sandbox: a money move needs its
// Idempotency-Key, each (lifecycle, operation, key) has its own provider request id, a key's answer is kept
// as long as the provider honours the request id, and ids are one path segment of the providers' alphabet.

let exchanges: Exchange[] = [];
const stack = useLifecycleStack({
  through: async (sandboxUrl) => {
    const proxy = await startRecordingProxy(sandboxUrl);
    exchanges = proxy.exchanges;
    return proxy;
  },
});

const withKey = (key: string) => ({ headers: { 'idempotency-key': key } });

/** The request ids the provider received for an authorization's (or a capture's) calls, in order. */
function requestIdsSentFor(resourceId: string): string[] {
  return exchanges
    .filter((exchange) => exchange.method === 'POST' && exchange.path.includes(`/${resourceId}/`))
    .map((exchange) => String(exchange.requestHeaders['service-request-id']));
}

describe('an Idempotency-Key', () => {
  it.each([
    ['capture', (id: string) => `/v1/lifecycles/${id}/capture`],
    ['reauthorize', (id: string) => `/v1/lifecycles/${id}/reauthorize`],
  ])('is required on %s: 400 naming the header, nothing sent to the provider', async (_what, path) => {
    const authorizationId = await stack.startLifecycle('20.00');
    const refused = await stack.api.post(path(authorizationId), {});
    expect(refused.status).toBe(400);
    expect(refused.data.error.code).toBe('VALIDATION_FAILED');
    expect(refused.data.error.message).toMatch(/^headers\.idempotency-key: required/);
    expect(requestIdsSentFor(authorizationId)).toEqual([]);
  });

  it('is required on refund: 400 naming the header, nothing refunded', async () => {
    const authorizationId = await stack.startLifecycle('20.00');
    const capture = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
    const refused = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/captures/${capture.data.id}/refund`,
      {},
    );
    expect(refused.status).toBe(400);
    expect(refused.data.error.message).toMatch(/^headers\.idempotency-key: required/);
    expect(requestIdsSentFor(capture.data.id as string)).toEqual([]);
  });

  it('may be left out of a void', async () => {
    const authorizationId = await stack.startLifecycle('20.00');
    expect((await stack.api.post(`/v1/lifecycles/${authorizationId}/void`, {})).status).toBe(200);
  });

  it.each([
    ['a "/"', 'order/42'],
    ['a space', 'order 42'],
    ['more than 64 characters', 'k'.repeat(65)],
  ])('holding %s is refused with 400 naming the header', async (_what, key) => {
    const authorizationId = await stack.startLifecycle('20.00');
    const refused = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, withKey(key));
    expect(refused.status).toBe(400);
    expect(refused.data.error.message).toMatch(/^headers\.idempotency-key: /);
  });

  it.each(['capture', 'refund', 'reauthorize'] as const)(
    'left out of a %s by a LifecycleClient caller is refused by the lifecycle itself (400 at the API)',
    async (operation) => {
      const authorizationId = await stack.startLifecycle('20.00');
      const request =
        operation === 'capture'
          ? stack.lifecycles.capture(authorizationId, { amount: '1.00' })
          : operation === 'reauthorize'
            ? stack.lifecycles.reauthorize(authorizationId, {})
            : stack.lifecycles.refund(authorizationId, 'C1', {});
      const error = await request.catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
      const failure = (error as Error).cause as ApplicationFailure;
      expect(failure.type).toBe(LifecycleFailure.invalidRequest);
      expect(failure.message).toBe(
        `Idempotency-Key: required for a ${operation}, so that its retry cannot ${operation} again`,
      );
      expect(toApiError(error).status).toBe(400);
      expect(requestIdsSentFor(authorizationId)).toEqual([]);
    },
  );
});

describe('a provider request id', () => {
  it('differs between a capture under "reauthorize-X" and a reauthorization under "X"', async () => {
    const authorizationId = await stack.startLifecycle('50.00');
    const key = randomUUID();
    const capture = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount: '10.00' },
      withKey(`reauthorize-${key}`),
    );
    expect(capture.status).toBe(200);
    const reauthorized = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/reauthorize`,
      {},
      withKey(key),
    );
    expect(reauthorized.status).toBe(200);
    const [captureId, reauthorizeId] = requestIdsSentFor(authorizationId);
    expect(captureId).toBe(`${authorizationId}/capture/reauthorize-${key}`);
    expect(reauthorizeId).toBe(`${authorizationId}/reauthorize/${key}`);
  });
});

describe("a key's answer", () => {
  it('outlives a shorter retention while the provider honours its request id: no stale replay', async () => {
    const authorizationId = await stack.startLifecycle('100.00', { idempotencyKeyRetention: '1 second' });
    const key = randomUUID();
    const first = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount: '1.00' },
      withKey(key),
    );
    expect(first.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_200));

    // The provider would replay its 1.00 capture for this key: the lifecycle refuses the other amount.
    const other = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount: '3.00' },
      withKey(key),
    );
    expect(other.status).toBe(422);
    expect(other.data.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const retry = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount: '1.00' },
      withKey(key),
    );
    expect(retry.status).toBe(200);
    expect(retry.data.id).toBe(first.data.id);
    expect(await stack.capturesAtProvider(authorizationId)).toHaveLength(1);
    const state = (await stack.api.get(`/v1/lifecycles/${authorizationId}`)).data;
    expect(state).toMatchObject({ capturedAmount: '1.00', remainingAmount: '99.00' });
  });
});

describe('an identifier', () => {
  it.each(['.', '..', 'A.B'])(
    '%j as authorization id is refused with 400 before the provider is asked',
    async (id) => {
      const sentBefore = exchanges.length;
      const started = await stack.api.post('/v1/lifecycles', { authorizationId: id });
      expect(started.status).toBe(400);
      expect(started.data.error.message).toMatch(/^body\.authorizationId: letters, digits, "_" or "-"/);
      expect(exchanges.slice(sentBefore)).toEqual([]);
    },
  );

  it.each(['A.B', '..x'])('%j in the path is refused with 400 naming the field', async (segment) => {
    const authorizationId = await stack.startLifecycle('20.00');
    const capture = await stack.api.post(`/v1/lifecycles/${segment}/capture`, {}, freshKey());
    expect(capture.status).toBe(400);
    expect(capture.data.error.message).toMatch(/^params\.authorizationId: /);
    const refund = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/captures/${segment}/refund`,
      {},
      freshKey(),
    );
    expect(refund.status).toBe(400);
    expect(refund.data.error.message).toMatch(/^params\.captureId: /);
  });
});
