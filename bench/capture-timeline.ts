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

/**
 * The milliseconds of a history's last Update from the start of its activity (the provider call) to the
 * Update's completion (the answer booked): the provider's time, the activity's own work, the hand-off of the
 * workflow task that books the answer, and that task.
 */
export function activityToAnswerMs(history: temporal.api.history.v1.IHistory): number | undefined {
  const events = history.events ?? [];
  const names = events.map(eventName);
  const completed = names.lastIndexOf('WORKFLOW_EXECUTION_UPDATE_COMPLETED');
  const started = names.lastIndexOf('ACTIVITY_TASK_STARTED', completed);
  if (completed < 0 || started < 0) return undefined;
  return eventTimeMs(events[completed] as HistoryEvent) - eventTimeMs(events[started] as HistoryEvent);
}

/** The p50 of each step over the lifecycles given, in the order the steps happen. */
export async function updateTimeline(client: Client, workflowIds: string[]): Promise<string[]> {
  const byStep = new Map<string, number[]>();
  const activityToAnswer: number[] = [];
  for (const id of workflowIds) {
    const history = await client.workflow.getHandle(id).fetchHistory();
    for (const [step, ms] of lastUpdateSteps(history)) {
      byStep.set(step, [...(byStep.get(step) ?? []), ms]);
    }
    const ms = activityToAnswerMs(history);
    if (ms !== undefined) activityToAnswer.push(ms);
  }
  const line = (ms: number, what: string) => `${ms.toFixed(1).padStart(7)} ms  ${what}`;
  const lines = [...byStep].map(([step, samples]) =>
    line(percentile(samples, 50), `${step} (${samples.length})`),
  );
  if (activityToAnswer.length > 0) {
    const what = `the activity's start → the answer (${activityToAnswer.length})`;
    lines.push(line(percentile(activityToAnswer, 50), what));
  }
  return lines;
}
