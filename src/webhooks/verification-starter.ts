import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { webhookVerification } from '../workflows/webhooks/verification';
import {
  webhookVerificationWorkflowId,
  webhookVerificationWorkflowType,
  type ReceivedDelivery,
  type WebhookVerifyMode,
} from '../workflows/webhooks/definitions';

export interface VerificationStarterOptions {
  client: Client;
  taskQueue: string;
  mode: WebhookVerifyMode;
  /** WEBHOOK_ID; without it the worker looks up the listener's subscription. */
  webhookId?: string;
  /** How long a start may take before the delivery is answered 503 (the provider then delivers again). */
  startTimeoutMs?: number;
}

export interface StartedVerification {
  workflowId: string;
  /** True when this transmission already has a verification run: nothing new was started. */
  duplicate: boolean;
}

/** Starts one webhookVerification run per transmission; the only Temporal call on the delivery path. */
export class VerificationStarter {
  constructor(private readonly options: VerificationStarterOptions) {}

  async start(
    transmissionId: string,
    delivery: ReceivedDelivery,
    receivedAt: Date,
  ): Promise<StartedVerification> {
    const { client, taskQueue, mode, webhookId, startTimeoutMs = 5_000 } = this.options;
    const workflowId = webhookVerificationWorkflowId(transmissionId);
    try {
      await client.withDeadline(Date.now() + startTimeoutMs, () =>
        client.workflow.start<typeof webhookVerification>(webhookVerificationWorkflowType, {
          workflowId,
          taskQueue,
          args: [{ delivery, receivedAt: receivedAt.toISOString(), mode, ...(webhookId && { webhookId }) }],
          // A completed run (a verified delivery) is never repeated: a replayed signature, even on another body
          // with the same CRC-32, is a duplicate. One that failed (a rejected delivery, a bug, a termination)
          // may be redone, so a refused verification never blocks the genuine delivery.
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
        }),
      );
      return { workflowId, duplicate: false };
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) return { workflowId, duplicate: true };
      throw error;
    }
  }
}
