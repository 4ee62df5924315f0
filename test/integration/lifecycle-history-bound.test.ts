import { randomUUID } from 'node:crypto';
import { HISTORY_EVENTS_PER_RUN } from '../../src/workflows/lifecycle/workflow';
import {
  lifecycleWorkflowId,
  paymentEventSignal,
  type LifecycleState,
} from '../../src/workflows/lifecycle/definitions';
import { eventually } from '../helpers/eventually';
import { useLifecycleStack } from '../helpers/lifecycle-stack';

// A lifecycle that receives many provider events continues as new at HISTORY_EVENTS_PER_RUN events, on a
// server that would suggest it only at 4 Ki: no run's history (replayed whole after an eviction) grows past
// the bound, and the state carries over.

const stack = useLifecycleStack();

async function runs(authorizationId: string): Promise<Array<{ runId: string; events: number }>> {
  const workflowId = lifecycleWorkflowId(authorizationId);
  const found: Array<{ runId: string; events: number }> = [];
  for await (const run of stack.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    const history = await stack.client.workflow.getHandle(workflowId, run.runId).fetchHistory();
    found.push({ runId: run.runId, events: history.events?.length ?? 0 });
  }
  return found;
}

it('continues as new before a run holds more than the bound of history events', async () => {
  const authorizationId = await stack.startLifecycle('100.00');
  const handle = stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId));
  // Each event adds at least its signal to the history (a workflow task may take several).
  const sent: string[] = [];
  for (let i = 0; i < HISTORY_EVENTS_PER_RUN; i += 1) {
    sent.push(`WH-${randomUUID()}`);
    await handle.signal(paymentEventSignal, {
      id: sent[i] as string,
      eventType: 'authorization.created',
      authorizationId,
    });
  }
  const all = await eventually(
    () => runs(authorizationId),
    (found) => found.length >= 2,
    { what: 'a second run', timeoutMs: 30_000 },
  );
  // A run ends some events past the bound: events that arrive while it continues as new are taken first.
  for (const run of all) expect(run.events).toBeLessThan(HISTORY_EVENTS_PER_RUN + 100);
  const state = (await stack.lifecycles.state(authorizationId)) as LifecycleState;
  expect(state.status).toBe('AUTHORIZED');
  // Events from both runs are remembered: none is lost at the change of run.
  expect(state.seenEventIds).toEqual(expect.arrayContaining([sent[0], sent.at(-1)]));
  expect(await stack.lifecycles.capture(authorizationId, { idempotencyKey: 'after-runs' })).toMatchObject({
    status: 'COMPLETED',
  });
});
