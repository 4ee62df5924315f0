import { randomUUID } from 'node:crypto';
import { lifecycleWorkflowId } from '../../src/workflows/lifecycle/definitions';
import { eventually } from '../helpers/eventually';
import { freshKey } from '../helpers/lifecycle-stack';
import { providerFixtures } from '../helpers/provider-fixtures';
import { useProviderStack } from '../helpers/provider-stack';

// A provider event about a lifecycle an operator terminated: its verification ends, the event reaching no
// lifecycle, rather than retrying forever while the provider's deliveries are answered 409.

describe.each(providerFixtures)('$name events of a lifecycle terminated from outside', (fixture) => {
  const stack = useProviderStack(fixture);

  it('end their verification, reaching no lifecycle', async () => {
    const authorizationId = await stack.startLifecycle('30.00');
    const capture = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
    expect(capture.status).toBe(200);
    await stack.client.workflow
      .getHandle(lifecycleWorkflowId(authorizationId))
      .terminate('an operator ended it');
    const startedAt = new Date().toISOString();
    await stack.dashboard.refundCapture({
      captureId: capture.data.id as string,
      amount: { currency_code: 'USD', value: '10.00' },
      idempotencyKey: `dashboard-${randomUUID()}`,
    });
    const query = `WorkflowType = 'webhookVerification' AND TaskQueue = '${stack.taskQueue}' AND StartTime >= '${startedAt}'`;
    const runs = await eventually(
      async () => {
        const found: { status: string }[] = [];
        for await (const run of stack.client.workflow.list({ query }))
          found.push({ status: run.status.name });
        return found;
      },
      (found) => found.length > 0 && found.every((run) => run.status !== 'RUNNING'),
      { what: 'the refund event verified and done', timeoutMs: 30_000 },
    );
    expect(runs.every((run) => run.status === 'COMPLETED')).toBe(true);
  });
});
