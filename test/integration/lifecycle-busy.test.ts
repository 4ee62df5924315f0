import { randomUUID } from 'node:crypto';
import { lifecycleWorkflowId, paymentEventSignal } from '../../src/workflows/lifecycle/definitions';
import {
  busyCounts,
  driveBusyLifecycle,
  fiveRunsCounts,
  runCount,
  unanswered,
  type BusyCounts,
} from '../helpers/busy-lifecycle';
import { useLifecycleStack } from '../helpers/lifecycle-stack';

// A busy lifecycle: many keyed captures and refunds through the HTTP API, each followed (as the webhooks
// would) by the provider's event signalled in moments after the answer, so events meet Updates across many
// continue-as-new boundaries. Every request gets its business answer; none a 5xx. With 8 in flight the lifecycle
// takes as many keys as it keeps answers for (busyCounts); one at a time, enough for five runs and more, as on the
// cluster (test/cluster/busy-lifecycle.test.ts).

const stack = useLifecycleStack();
jest.setTimeout(300_000);

async function busyLifecycle(inFlight: number, counts: BusyCounts): Promise<void> {
  const authorizationId = await stack.startLifecycle('100.00');
  const handle = stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId));
  const delivered: Promise<void>[] = [];
  const answers = await driveBusyLifecycle({
    api: stack.api,
    authorizationId,
    inFlight,
    counts,
    deliver: (event) =>
      delivered.push(handle.signal(paymentEventSignal, { id: `WH-${randomUUID()}`, ...event })),
  });
  await Promise.all(delivered);

  expect(unanswered(answers)).toEqual([]);
  // At least four continue-as-new boundaries: five runs.
  expect(await runCount(stack.client, authorizationId)).toBeGreaterThanOrEqual(5);
  const state = (await stack.lifecycles.state(authorizationId))!;
  expect(state.captures).toHaveLength(counts.captures + 1);
  expect(state.refunds).toHaveLength(counts.refunds);
  // A request sent again after it met a run's end is not made twice at the provider.
  expect(await stack.capturesAtProvider(authorizationId)).toHaveLength(counts.captures + 1);
}

it('answers every sequential keyed capture and refund on a busy lifecycle', () =>
  busyLifecycle(1, fiveRunsCounts));

it('answers every keyed capture and refund on a busy lifecycle with 8 in flight', () =>
  busyLifecycle(8, busyCounts));
