import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { eventually } from '../helpers/eventually';
import { freshKey } from '../helpers/lifecycle-stack';
import { paypalFixture } from '../helpers/provider-fixtures';
import { useProviderStack } from '../helpers/provider-stack';

// The event-overdue reconciliation over the real API, worker and sandbox with its webhook subscription: a
// capture whose event arrives is not read (lifecycle-reconcile.test.ts has the lifecycle whose event never
// comes).

const stack = useProviderStack(paypalFixture);

it('does not read the provider for a capture whose event arrived, and keeps its one deadline', async () => {
  const authorizationId = await stack.startLifecycle('50.00', { eventGracePeriod: '2 seconds' });
  const capture = await stack.api.post(
    `/v1/lifecycles/${authorizationId}/capture`,
    { amount: '20.00', finalCapture: false },
    freshKey(),
  );
  expect(capture.status).toBe(200);
  const confirmed = await eventually(
    () => stack.state(authorizationId),
    (state: LifecycleState) => state.recentEvents.some((event) => event.captureId === capture.data.id),
    { what: "the capture's event" },
  );
  expect(confirmed.awaitedEvents).toBeUndefined();
  expect(confirmed.nextTimer).toMatchObject({ kind: 'reauthorize' });

  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const later = await stack.state(authorizationId);
  expect(later.lastReconciliation).toBeUndefined();
  expect(later.nextTimer).toEqual(confirmed.nextTimer);
});
