import { createProviderActivities } from '../../src/activities/payments';
import type { ProviderHoldings } from '../../src/providers/holdings';
import { lifecycleWorkflowId, type LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { firstFailedTaskMessage } from '../helpers/failed-tasks';
import { useLifecycleStack } from '../helpers/lifecycle-stack';

// The read before a lifecycle closes, over the real API, the dev server and the sandbox: a provider that
// cannot be read leaves the ledger as booked and the run closes; a read the booking cannot take is a defect
// of the worker, which fails the workflow task for operators to see and keeps the run open.

const unreadable = new Set<string>();
const malformed = new Set<string>();

const stack = useLifecycleStack({
  worker: (taskQueue, payments) => ({
    taskQueue,
    activities: createProviderActivities({
      ...payments,
      async readHoldings(request) {
        const [authorizationId] = request.authorizationIds;
        if (unreadable.has(authorizationId!)) throw new Error('provider unreachable (test)');
        if (malformed.has(authorizationId!)) return { authorizations: [{}] } as unknown as ProviderHoldings;
        return payments.readHoldings(request);
      },
    }),
  }),
});

/** A lifecycle of 30.00 whose provider reads go to `reads`, voided, with a late-event window of a second. */
async function voidedLifecycle(reads: Set<string>): Promise<string> {
  const { id: authorizationId } = await stack.createAuthorization('30.00');
  reads.add(authorizationId);
  const body = { authorizationId, lateEventWindow: '1 second', timerCallTimeout: '2 seconds' };
  expect((await stack.api.post('/v1/lifecycles', body)).status).toBe(201);
  expect((await stack.api.post(`/v1/lifecycles/${authorizationId}/void`, {})).status).toBe(200);
  return authorizationId;
}

describe('the read before a lifecycle closes', () => {
  it('closes the run with the ledger as booked when the provider cannot be read', async () => {
    const authorizationId = await voidedLifecycle(unreadable);
    const handle = stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId));
    const result = (await handle.result()) as LifecycleState;
    expect(result.status).toBe('VOIDED');
    expect(result.lastReconciliation).toBeUndefined();
  });

  it('keeps the run open and fails its workflow task when the read cannot be booked', async () => {
    const authorizationId = await voidedLifecycle(malformed);
    const handle = stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId));
    try {
      const message = await firstFailedTaskMessage(handle, 'the task that books the malformed read to fail');
      expect(message).toMatch(/findings is not iterable/);
      expect((await handle.describe()).status.name).toBe('RUNNING');
    } finally {
      await handle.terminate('test over');
    }
  });
});
