import { postJson } from '../../bench/provider-sandboxes';
import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { eventually } from '../helpers/eventually';
import { freshKey } from '../helpers/lifecycle-stack';
import { paypalFixture } from '../helpers/provider-fixtures';
import { useProviderStack } from '../helpers/provider-stack';

// The event-overdue reconciliation over the real API, worker and sandbox with its webhook subscription: a
// capture answered PENDING whose settling event arrives is not read (lifecycle-reconcile.test.ts has the
// lifecycle whose event never comes).

const stack = useProviderStack(paypalFixture);

it('does not read the provider for a pending capture whose event settled it, and keeps its one deadline', async () => {
  const { id: authorizationId } = await postJson<{ id: string }>(
    `${stack.sandbox.url}/sandbox/authorizations`,
    { amount: { currency_code: 'USD', value: '50.00' }, capture_status: 'PENDING' },
  );
  expect(
    (await stack.api.post('/v1/lifecycles', { authorizationId, eventGracePeriod: '2 seconds' })).status,
  ).toBe(201);
  const capture = await stack.api.post(
    `/v1/lifecycles/${authorizationId}/capture`,
    { amount: '20.00', finalCapture: false },
    freshKey(),
  );
  expect(capture.data).toMatchObject({ status: 'PENDING' });
  expect((await stack.state(authorizationId)).nextTimer).toMatchObject({ kind: 'reconcile' });
  await postJson(`${stack.sandbox.url}/sandbox/captures/${capture.data.id}/complete`, {});

  const confirmed = await eventually(
    () => stack.state(authorizationId),
    (state: LifecycleState) => state.captures[0]?.status === 'COMPLETED',
    { what: "the capture's completion event" },
  );
  expect(confirmed.awaitedEvents).toBeUndefined();
  expect(confirmed.nextTimer).toMatchObject({ kind: 'reauthorize' });

  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const later = await stack.state(authorizationId);
  expect(later.lastReconciliation).toBeUndefined();
  expect(later.nextTimer).toEqual(confirmed.nextTimer);
});
