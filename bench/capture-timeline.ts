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
 * The events of a history's last Update, from the workflow task that accepted it to its completion, with their
 * names; undefined when the history has no completed Update.
 */
function lastUpdateEvents(
  history: temporal.api.history.v1.IHistory,
): { events: HistoryEvent[]; names: string[] } | undefined {
  const events = history.events ?? [];
  const names = events.map(eventName);
  const accepted = names.lastIndexOf('WORKFLOW_EXECUTION_UPDATE_ACCEPTED');
  const completed = names.indexOf('WORKFLOW_EXECUTION_UPDATE_COMPLETED', accepted);
  if (accepted < 0 || completed < 0) return undefined;
  let from = accepted;
  while (from > 0 && names[from] !== 'WORKFLOW_TASK_SCHEDULED') from -= 1;
  return { events: events.slice(from, completed + 1), names: names.slice(from, completed + 1) };
}

/**
 * The steps of a history's last Update, from the workflow task that accepted it to its completion: each step
 * named by its number and the two events it lies between, with the milliseconds between them.
 */
export function lastUpdateSteps(history: temporal.api.history.v1.IHistory): Array<[string, number]> {
  const update = lastUpdateEvents(history);
  if (!update) return [];
  const { events, names } = update;
  return events.slice(1).map((after, i) => {
    const before = events[i] as HistoryEvent;
    return [`${i + 1}. ${names[i]} → ${names[i + 1]}`, eventTimeMs(after) - eventTimeMs(before)];
  });
}

/**
 * The milliseconds of a history's last Update from the start of its activity (the provider call) to the
 * Update's completion (the answer booked): the provider's time, the activity's own work, the hand-off of the
 * workflow task that books the answer, and that task. Undefined when that Update ran no activity.
 */
export function activityToAnswerMs(history: temporal.api.history.v1.IHistory): number | undefined {
  const update = lastUpdateEvents(history);
  const started = update?.names.indexOf('ACTIVITY_TASK_STARTED') ?? -1;
  if (!update || started < 0) return undefined;
  const completed = update.events[update.events.length - 1] as HistoryEvent;
  return eventTimeMs(completed) - eventTimeMs(update.events[started] as HistoryEvent);
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
