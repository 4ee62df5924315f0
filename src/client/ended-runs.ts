import type { WorkflowExecutionDescription } from '@temporalio/client';
import type { LifecycleState, RunEnded } from '../workflows/lifecycle/definitions';

// A run ended from outside the lifecycle (terminated through Temporal, or past its execution timeout) still
// answers queries by replay, with the state it had: its timer looks armed and its status open. A read tells it
// apart by the run's description.

/** How the run was ended from outside the lifecycle, or undefined when it was not. */
export function runEndedOf(description: WorkflowExecutionDescription): RunEnded | undefined {
  const how = description.status.name;
  if (how !== 'TERMINATED' && how !== 'TIMED_OUT') return undefined;
  return { how, ...(description.closeTime && { at: description.closeTime.toISOString() }) };
}

/** The state of a run ended from outside: no timer, and how it ended. */
export function endedRunState(state: LifecycleState, runEnded: RunEnded): LifecycleState {
  const {
    nextTimer: _nextTimer,
    reauthorizeAt: _reauthorizeAt,
    awaitedEvents: _awaitedEvents,
    closesAt: _closesAt,
    ...rest
  } = state;
  return { ...rest, runEnded };
}

/** How a refusal names the end of a lifecycle: its status, and how its run was ended from outside. */
export function endedHow(state: LifecycleState): string {
  const status = `the authorization is ${state.status}`;
  if (!state.runEnded) return status;
  const how = state.runEnded.how === 'TERMINATED' ? 'terminated' : 'timed out';
  return `its run was ${how}${state.runEnded.at ? ` at ${state.runEnded.at}` : ''}; ${status}`;
}
