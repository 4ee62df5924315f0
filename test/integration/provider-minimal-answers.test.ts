import { randomUUID } from 'node:crypto';
import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { eventually } from '../helpers/eventually';
import { startLifecycleStack, type LifecycleStack } from '../helpers/lifecycle-stack';
import { startRecordingProxy, type Exchange } from '../helpers/recording-proxy';

// A provider that answers every write minimal, whatever the client prefers (PayPal's default): capture and
// reauthorize with id, status and links, void with 204. The lifecycle still gets what it needs.

function minimalWrites(exchange: Exchange) {
  if (exchange.method !== 'POST' || exchange.status >= 300) return undefined;
  if (exchange.path.endsWith('/void')) return { status: 204, body: '' };
  if (!/\/(capture|reauthorize)$/.test(exchange.path)) return undefined;
  const { id, status, links } = JSON.parse(exchange.responseBody.toString('utf8')) as Record<string, unknown>;
  return { status: exchange.status, body: JSON.stringify({ id, status, links }) };
}

let stack: LifecycleStack;
beforeAll(async () => {
  stack = await startLifecycleStack({
    mode: 'paypal',
    through: (sandboxUrl) => startRecordingProxy(sandboxUrl, minimalWrites),
  });
});
afterAll(async () => {
  await stack?.close();
});

const stateOf = async (authorizationId: string) =>
  (await stack.api.get(`/v1/lifecycles/${authorizationId}`)).data as LifecycleState;

it('reauthorizes on its timer from a minimal answer and records the new authorization, not a failure', async () => {
  const authorizationId = await stack.startLifecycle('50.00', { reauthorizeAfter: '1 second' });
  const state = await eventually(
    () => stateOf(authorizationId),
    (s) => s.reauthorizations.length === 1 || s.reauthorizationFailure !== undefined,
    { what: 'the timer reauthorization' },
  );
  expect(state.reauthorizationFailure).toBeUndefined();
  expect(state.reauthorizations[0]).toMatchObject({ reason: 'timer', amount: { value: '50.00' } });
});

it('captures and voids from minimal answers', async () => {
  const authorizationId = await stack.startLifecycle('40.00');
  const captured = await stack.api.post(
    `/v1/lifecycles/${authorizationId}/capture`,
    { amount: '10.00' },
    { headers: { 'idempotency-key': randomUUID() } },
  );
  expect(captured.status).toBe(200);
  expect(captured.data).toMatchObject({ status: 'COMPLETED' });
  const voided = await stack.api.post(`/v1/lifecycles/${authorizationId}/void`, {});
  expect(voided.status).toBe(200);
  expect(voided.data).toMatchObject({ id: authorizationId, status: 'VOIDED' });
  expect((await stateOf(authorizationId)).capturedAmount).toBe('10.00');
});
