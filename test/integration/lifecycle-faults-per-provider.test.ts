import { randomUUID } from 'node:crypto';
import type { Sandbox } from '../../src/sandbox/server';
import { startWorkerAndApi } from '../helpers/lifecycle-stack';
import { providerFixtures } from '../helpers/provider-fixtures';

// One capture per key under the provider's faults, the same for each provider: the provider commits a capture
// and drops its answer, answers 500, or answers 429; the lifecycle's retries send the same key, so the provider
// captures once and the order system's retry answers that capture.

const faults = [
  ['commits and drops the answer', { mode: 'commit-then-drop', count: 3 }],
  ['answers 500', { mode: 'http500', count: 2 }],
  ['answers 429', { mode: 'http429', count: 2, retryAfterSeconds: 1 }],
] as const;

describe.each(providerFixtures)('a $name lifecycle', (fixture) => {
  let sandbox: Sandbox;
  let close: () => Promise<void>;
  let api: Awaited<ReturnType<typeof startWorkerAndApi>>['api'];

  beforeAll(async () => {
    sandbox = await fixture.startSandbox();
    const started = await startWorkerAndApi(`faults-${fixture.name}`, fixture.activities(sandbox, ''));
    api = started.api;
    close = async () => {
      await started.close();
      await sandbox.close();
    };
  });
  afterEach(async () => {
    await fetch(`${sandbox.url}/sandbox/faults`, { method: 'DELETE' });
  });
  afterAll(async () => {
    await close?.();
  });

  it.each(faults)('captures once per key when the provider %s', async (_fault, fault) => {
    const authorizationId = await fixture.authorize(sandbox, '100.00');
    expect((await api.post('/v1/lifecycles', { authorizationId })).status).toBe(201);
    const armed = await fetch(`${sandbox.url}/sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operation: 'capture', ...fault }),
    });
    expect(armed.status).toBe(201);

    const key = randomUUID();
    const capture = () =>
      api.post(
        `/v1/lifecycles/${authorizationId}/capture`,
        { amount: '30.00' },
        { headers: { 'idempotency-key': key } },
      );
    const first = await capture();
    expect(first.status).toBe(200);
    expect(first.data.amount).toEqual({ currency_code: 'USD', value: '30.00' });
    const retried = await capture();
    expect(retried.status).toBe(200);
    expect(retried.data.id).toBe(first.data.id);

    // Every armed fault was met: the provider misbehaved, and still captured 30.00 once.
    expect(
      ((await (await fetch(`${sandbox.url}/sandbox/faults`)).json()) as { faults: unknown[] }).faults,
    ).toEqual([]);
    expect(await fixture.captured(sandbox, authorizationId)).toEqual({
      captureIds: [first.data.id],
      total: '30.00',
    });
  });
});
