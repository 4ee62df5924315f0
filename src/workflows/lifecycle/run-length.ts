import { workflowInfo } from '@temporalio/workflow';

/**
 * A run continues as new once its history is this long, well before the server suggests it (4 Ki events):
 * a worker that evicted the run replays its whole history on the next task, so a lifecycle that receives
 * many provider events keeps its workflow tasks short (see docs/performance.md).
 */
export const HISTORY_EVENTS_PER_RUN = 250;

/** Whether this run should continue as new: the server suggests it, or its history reached the bound. */
export function shouldContinueAsNew(): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength >= HISTORY_EVENTS_PER_RUN;
}
