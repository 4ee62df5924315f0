import type { smokeWorkflow } from '../../../fixtures/workflows/smoke';
import type { Scenario } from '../scenario';

export const smoke: Scenario = {
  name: 'smoke-workflow',
  shows: 'the smoke workflow: one activity, its answer',
  async drive(stack) {
    const run = await stack.client.workflow.start<typeof smokeWorkflow>('smokeWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId: 'smoke-workflow',
      args: ['ops'],
    });
    const answer = await run.result();
    if (answer !== 'workflow saw: hello, ops') throw new Error(`the smoke workflow answered ${answer}`);
    return run;
  },
};
