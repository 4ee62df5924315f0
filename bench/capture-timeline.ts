import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { eventTimeMs } from './event-time';
import { percentile } from './stats';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const EventType = temporal.api.enums.v1.EventType;

function eventName(event: HistoryEvent): string {
  return (EventType[event.eventType ?? 0] ?? String(event.eventType)).replace('EVENT_TYPE_', '');
}

/**
 * The steps of a history's last Update, from the workflow task that accepted it to its completion: each step
 * named by its number and the two events it lies between, with the milliseconds between them.
 */
export function lastUpdateSteps(history: temporal.api.history.v1.IHistory): Array<[string, number]> {
  const events = history.events ?? [];
  const names = events.map(eventName);
  const accepted = names.lastIndexOf('WORKFLOW_EXECUTION_UPDATE_ACCEPTED');
  if (accepted < 0) return [];
  let from = accepted;
  while (from > 0 && names[from] !== 'WORKFLOW_TASK_SCHEDULED') from -= 1;
  const completed = names.indexOf('WORKFLOW_EXECUTION_UPDATE_COMPLETED', accepted);
  const steps: Array<[string, number]> = [];
  for (let i = from + 1; i <= completed; i += 1) {
    const [before, after] = [events[i - 1] as HistoryEvent, events[i] as HistoryEvent];
    steps.push([`${i - from}. ${names[i - 1]} → ${names[i]}`, eventTimeMs(after) - eventTimeMs(before)]);
  }
  return steps;
}

/** The p50 of each step over the lifecycles given, in the order the steps happen. */
export async function updateTimeline(client: Client, workflowIds: string[]): Promise<string[]> {
  const byStep = new Map<string, number[]>();
  for (const id of workflowIds) {
    const history = await client.workflow.getHandle(id).fetchHistory();
    for (const [step, ms] of lastUpdateSteps(history)) {
      byStep.set(step, [...(byStep.get(step) ?? []), ms]);
    }
  }
  return [...byStep].map(
    ([step, samples]) => `${percentile(samples, 50).toFixed(1).padStart(7)} ms  ${step} (${samples.length})`,
  );
}
