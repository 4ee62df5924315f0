import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { eventually } from '../helpers/eventually';
import { pendingCapture, settleAtBank } from '../helpers/pending-capture';
import { paypalFixture } from '../helpers/provider-fixtures';
import { useProviderStack } from '../helpers/provider-stack';

// The event-overdue reconciliation over the real API, worker and sandbox with its webhook subscription: a
// capture answered PENDING whose settling event arrives is not read (lifecycle-reconcile.test.ts has the
// lifecycle whose event never comes).

const stack = useProviderStack(paypalFixture);

it('does not read the provider for a pending capture whose event settled it, and keeps its one deadline', async () => {
  const { authorizationId, captureId } = await pendingCapture(stack, '50.00', '20.00');
  expect((await stack.state(authorizationId)).nextTimer).toMatchObject({ kind: 'reconcile' });
  await settleAtBank(stack, captureId);

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
