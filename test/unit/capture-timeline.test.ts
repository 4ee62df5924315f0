import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { activityToAnswerMs, lastUpdateSteps } from '../../bench/capture-timeline';
import { eventTimeMs } from '../../bench/event-time';
import { historyFromJson } from '../helpers/history-json';

/** A lifecycle whose keyed captures call the provider in an activity (recorded by `npm run histories:record`). */
const history = historyFromJson(
  JSON.parse(
    readFileSync(
      join(__dirname, '..', 'histories', 'authorization-lifecycle-lost-answer-claimed.json'),
      'utf8',
    ),
  ),
);

describe("bench:scale's capture timeline", () => {
  it('names each step of the last Update, from the task that accepted it to its completion', () => {
    expect(lastUpdateSteps(history).map(([step]) => step)).toEqual([
      '1. WORKFLOW_TASK_SCHEDULED → WORKFLOW_TASK_STARTED',
      '2. WORKFLOW_TASK_STARTED → WORKFLOW_TASK_COMPLETED',
      '3. WORKFLOW_TASK_COMPLETED → WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
      '4. WORKFLOW_EXECUTION_UPDATE_ACCEPTED → ACTIVITY_TASK_SCHEDULED',
      '5. ACTIVITY_TASK_SCHEDULED → ACTIVITY_TASK_STARTED',
      '6. ACTIVITY_TASK_STARTED → ACTIVITY_TASK_COMPLETED',
      '7. ACTIVITY_TASK_COMPLETED → WORKFLOW_TASK_SCHEDULED',
      '8. WORKFLOW_TASK_SCHEDULED → WORKFLOW_TASK_STARTED',
      '9. WORKFLOW_TASK_STARTED → WORKFLOW_TASK_COMPLETED',
      '10. WORKFLOW_TASK_COMPLETED → WORKFLOW_EXECUTION_UPDATE_COMPLETED',
    ]);
  });

  it('adds up to the time from that task being scheduled to the Update completing', () => {
    const events = history.events ?? [];
    const byId = (id: unknown) => events.find((event) => Number(event.eventId) === Number(id)) ?? {};
    // Found through the server's own links, so the test holds whatever event ids a recording gives them.
    const completed = [...events]
      .reverse()
      .find((event) => event.workflowExecutionUpdateCompletedEventAttributes);
    const accepted = byId(completed?.workflowExecutionUpdateCompletedEventAttributes?.acceptedEventId);
    const taskScheduled = byId(
      accepted.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequestSequencingEventId,
    );
    const total = lastUpdateSteps(history).reduce((sum, [, ms]) => sum + ms, 0);
    expect(total).toBe(eventTimeMs(completed ?? {}) - eventTimeMs(taskScheduled));
    expect(total).toBeGreaterThan(0);
  });

  it("times the last Update from its activity's start to its completion: steps 6 to 10", () => {
    const fromActivityStart = lastUpdateSteps(history)
      .slice(5)
      .reduce((sum, [, ms]) => sum + ms, 0);
    expect(activityToAnswerMs(history)).toBe(fromActivityStart);
    expect(activityToAnswerMs({ events: (history.events ?? []).slice(0, 5) })).toBeUndefined();
  });

  it('has no steps for a history without an Update', () => {
    expect(lastUpdateSteps({ events: (history.events ?? []).slice(0, 5) })).toEqual([]);
  });
});
