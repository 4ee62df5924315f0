import { allHandlersFinished, condition, continueAsNew, workflowInfo } from '@temporalio/workflow';
import type { LifecycleInput, LifecycleState } from './definitions';

/** When the server suggests it, lets running handlers finish and carries the state into a new run. */
export async function continueAsNewIfSuggested(input: LifecycleInput, state: LifecycleState): Promise<void> {
  if (!workflowInfo().continueAsNewSuggested) return;
  await condition(allHandlersFinished);
  await continueAsNew<(input: LifecycleInput) => Promise<LifecycleState>>({ ...input, carriedState: state });
}
