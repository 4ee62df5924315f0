import { isAxiosError } from 'axios';
import {
  anyString,
  authorizationPath as path,
  capturesOf,
  createAuthorization,
  startHarness,
  usd,
  type SandboxHarness,
} from '../helpers/sandbox-fixtures';
import { eventually } from '../helpers/eventually';

describe('payments sandbox: injected faults', () => {
  let harness: SandboxHarness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(() => harness.close());
  afterEach(async () => {
    await harness.anonymous.delete('/sandbox/faults');
  });

  const arm = async (fault: Record<string, unknown>) => {
    const response = await harness.anonymous.post('/sandbox/faults', fault);
    expect(response.status).toBe(201);
  };
  const captureCount = async (id: string) => (await capturesOf(harness, id)).length;

  it('http500: the next N matching calls fail with nothing captured, then calls succeed', async () => {
    const { id } = await createAuthorization(harness);
    await arm({ operation: 'capture', mode: 'http500', count: 2 });
    for (let i = 0; i < 2; i += 1) {
      const failed = await harness.api.post(path(id, 'capture'), { amount: usd('1.00') });
      expect(failed.status).toBe(500);
      expect(failed.data).toMatchObject({ name: 'INTERNAL_SERVER_ERROR', debug_id: anyString });
    }
    expect(await captureCount(id)).toBe(0);
    expect((await harness.api.post(path(id, 'capture'), { amount: usd('1.00') })).status).toBe(201);
  });

  it('http429: answers rate limited with Retry-After', async () => {
    const { id } = await createAuthorization(harness);
    await arm({ operation: 'void', mode: 'http429', count: 1, retryAfterSeconds: 7 });
    const limited = await harness.api.post(path(id, 'void'));
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('7');
    expect(limited.data).toMatchObject({ name: 'RATE_LIMIT_REACHED' });
    expect((await harness.api.get(path(id))).data).toMatchObject({ status: 'CREATED' });
    expect((await harness.api.post(path(id, 'void'))).status).toBe(200);
  });

  it('stall: answers only after stallMs, and the capture still happens when the caller gave up', async () => {
    const { id } = await createAuthorization(harness);
    await arm({ operation: 'capture', mode: 'stall', count: 2, stallMs: 400 });
    const started = Date.now();
    const slow = await harness.api.post(path(id, 'capture'), { amount: usd('1.00') });
    expect(slow.status).toBe(201);
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);

    const timedOut = await harness.api
      .post(path(id, 'capture'), { amount: usd('2.00') }, { timeout: 100 })
      .catch((e: unknown) => e);
    expect(isAxiosError(timedOut) && timedOut.code).toBe('ECONNABORTED');
    expect(await captureCount(id)).toBe(1);
    // The stalled capture the caller gave up on still happens.
    await eventually(
      () => captureCount(id),
      (count) => count === 2,
      { what: 'the second capture' },
    );
  });

  it('commit-then-drop: the capture is committed, the connection dropped, and a retry with the id replays it', async () => {
    const { id } = await createAuthorization(harness);
    await arm({ operation: 'capture', mode: 'commit-then-drop', count: 1 });
    const headers = { 'Service-Request-Id': 'dropped-once' };
    const dropped = await harness.api
      .post(path(id, 'capture'), { amount: usd('30.00') }, { headers })
      .catch((e: unknown) => e);
    expect(isAxiosError(dropped)).toBe(true);
    expect(isAxiosError(dropped) && dropped.response).toBeUndefined();
    expect(await captureCount(id)).toBe(1);

    const retried = await harness.api.post(path(id, 'capture'), { amount: usd('30.00') }, { headers });
    expect(retried.status).toBe(201);
    expect(retried.data).toMatchObject({ amount: usd('30.00') });
    expect(await captureCount(id)).toBe(1);
  });

  it('matches faults by operation; `any` hits every interface call but never the control API or token endpoint', async () => {
    const { id } = await createAuthorization(harness);
    await arm({ operation: 'void', mode: 'http500', count: 1 });
    expect((await harness.api.get(path(id))).status).toBe(200);
    expect((await harness.api.post(path(id, 'reauthorize'), {})).status).toBe(201);

    await harness.anonymous.delete('/sandbox/faults');
    await arm({ operation: 'any', mode: 'http500', count: 3 });
    expect((await harness.anonymous.get(`/sandbox/authorizations/${id}/captures`)).status).toBe(200);
    expect((await harness.api.get(path(id))).status).toBe(500);
    expect((await harness.api.get('/v1/notifications/webhooks-event-types')).status).toBe(500);
    const armed = (await harness.anonymous.get('/sandbox/faults')).data as {
      faults: Array<{ remaining: number }>;
    };
    expect(armed.faults).toEqual([expect.objectContaining({ operation: 'any', remaining: 1 })]);

    expect((await harness.anonymous.delete('/sandbox/faults')).status).toBe(204);
    expect((await harness.api.get(path(id))).status).toBe(200);
  });

  it('probability: faults about that share of matching calls, one fault per call at most', async () => {
    const { id } = await createAuthorization(harness);
    await arm({ operation: 'get', mode: 'http500', count: 1000, probability: 0.1 });
    await arm({ operation: 'get', mode: 'http429', count: 1000, probability: 0.1 });
    const statuses: number[] = [];
    for (let i = 0; i < 400; i += 1) statuses.push((await harness.api.get(path(id))).status);
    const share = (status: number) => statuses.filter((s) => s === status).length / statuses.length;
    // 400 draws: each share lies within 0.1 ± 0.06 with overwhelming likelihood.
    expect(share(500)).toBeGreaterThan(0.04);
    expect(share(500)).toBeLessThan(0.16);
    expect(share(429)).toBeGreaterThan(0.04);
    expect(share(429)).toBeLessThan(0.16);
    expect(share(200)).toBeCloseTo(1 - share(500) - share(429), 5);
  });

  it('refuses a fault it does not know', async () => {
    const response = await harness.anonymous.post('/sandbox/faults', {
      operation: 'capture',
      mode: 'explode',
      count: 1,
    });
    expect(response.status).toBe(400);
    expect(response.data).toMatchObject({ name: 'INVALID_REQUEST', details: [{ field: '/mode' }] });
  });

  it('closes promptly even while a request stalls for the default 30 s', async () => {
    const other = await startHarness();
    const { id } = await createAuthorization(other);
    await other.anonymous.post('/sandbox/faults', { operation: 'get', mode: 'stall', count: 1 });
    const pending = other.api.get(path(id)).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    await other.close();
    await pending;
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
