import { HISTORY_EVENTS_PER_RUN } from '../../../../src/workflows/lifecycle/workflow';
import { capture, lifecycleRun, settledLifecycle, startLifecycle } from '../lifecycles';
import type { Scenario } from '../scenario';

// Each keyed capture of 0.01 and its event add about a dozen events; far fewer than this reach the bound.
const MOST_CAPTURES = 60;

export const continuedByLength: Scenario = {
  name: 'authorization-lifecycle-continued-by-length',
  shows: `a run of small keyed captures and their events, continued as new at ${HISTORY_EVENTS_PER_RUN} events`,
  async drive(stack) {
    const authorizationId = await startLifecycle(stack, '100.00');
    const { runId } = await lifecycleRun(stack, authorizationId).describe();
    for (let n = 1; n <= MOST_CAPTURES; n += 1) {
      await capture(stack, authorizationId, `length-${n}`, { amount: '0.01' });
      await settledLifecycle(stack, authorizationId);
      const latest = await lifecycleRun(stack, authorizationId).describe();
      if (latest.runId !== runId) return lifecycleRun(stack, authorizationId, runId);
    }
    throw new Error(`${MOST_CAPTURES} captures did not continue the run as new`);
  },
};
