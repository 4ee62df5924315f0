import { connectClient, uniqueTaskQueue, withWorker } from '../helpers/temporal';
import { smokeWorkflow } from '../fixtures/workflows/smoke';

describe('worker on a real Temporal dev server', () => {
  it('runs a workflow that calls an activity and returns its result', async () => {
    const { client, close } = await connectClient();
    const taskQueue = uniqueTaskQueue('smoke');
    try {
      const result = await withWorker(
        { taskQueue, activities: { greet: async (name: string) => `hello, ${name}` } },
        () =>
          client.workflow.execute(smokeWorkflow, {
            taskQueue,
            workflowId: `smoke-${taskQueue}`,
            args: ['ops'],
          }),
      );
      expect(result).toBe('workflow saw: hello, ops');
    } finally {
      await close();
    }
  });
});
