import { allHandlersFinished, condition, continueAsNew, patched, workflowInfo } from '@temporalio/workflow';
import type { LifecycleInput, LifecycleState } from './definitions';

/**
 * A run continues as new once its history is this long, well before the server suggests it (4 Ki events):
 * a worker that evicted the run replays its whole history on the next task, so a lifecycle that receives
 * many provider events keeps its workflow tasks short (see README "Performance").
 */
export const HISTORY_EVENTS_PER_RUN = 250;

/** Whether this run should continue as new: the server suggests it, or its history reached the bound. */
export function shouldContinueAsNew(): boolean {
  const info = workflowInfo();
  if (info.continueAsNewSuggested) return true;
  // Runs recorded before the bound replay as they ran: they ask the patch only past it.
  return info.historyLength >= HISTORY_EVENTS_PER_RUN && patched('continue-as-new-by-history-length');
}

/** When it should, lets running handlers finish and carries the state into a new run. */
export async function continueAsNewIfSuggested(input: LifecycleInput, state: LifecycleState): Promise<void> {
  if (!shouldContinueAsNew()) return;
  await condition(allHandlersFinished);
  await continueAsNew<(input: LifecycleInput) => Promise<LifecycleState>>({ ...input, carriedState: state });
}
