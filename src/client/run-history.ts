import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

const { EventType } = temporal.api.enums.v1;

const closeEvents = new Set([
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
]);

/** A joined run's first page holds its first workflow task; a new run's history grows a few events at a time. */
const PAGE_SIZE = 16;

/**
 * A run's history read as it grows: the server answers each read as soon as the history holds an event past
 * the last one read (a long poll), so a caller learns that a workflow task completed the moment it did.
 */
export class RunHistory {
  private nextPageToken: Uint8Array | undefined;
  private closed = false;

  constructor(
    private readonly client: Client,
    private readonly execution: { workflowId: string; runId: string },
  ) {}

  /** The next workflow task completed, or the run's close, past what was read; 'timed-out' at the deadline. */
  async nextTaskOrClose(deadline: number): Promise<'task-completed' | 'closed' | 'timed-out'> {
    for (;;) {
      if (this.closed) return 'closed';
      if (Date.now() >= deadline) return 'timed-out';
      const request = {
        namespace: this.client.options.namespace,
        execution: this.execution,
        waitNewEvent: true,
        skipArchival: true,
        maximumPageSize: PAGE_SIZE,
        ...(this.nextPageToken && { nextPageToken: this.nextPageToken }),
      };
      let response: temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryResponse;
      try {
        response = await this.client.withDeadline(deadline, () =>
          this.client.workflowService.getWorkflowExecutionHistory(request),
        );
      } catch (error) {
        if (Date.now() >= deadline) return 'timed-out';
        throw error;
      }
      this.nextPageToken = response.nextPageToken?.length ? response.nextPageToken : undefined;
      // No page follows the last page of a closed run.
      this.closed = !this.nextPageToken;
      const types = (response.history?.events ?? []).map((event) => event.eventType);
      if (this.closed || types.some((type) => type != null && closeEvents.has(type))) return 'closed';
      if (types.includes(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)) return 'task-completed';
    }
  }
}
