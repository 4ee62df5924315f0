import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { DeliveryIntake } from '../providers/port';
import type { WebhookDelivery } from '../providers/webhook-delivery';
import type { ProviderName } from '../provider-names';
import type { webhookVerification } from '../workflows/webhooks/verification';
import {
  webhookVerificationWorkflowId,
  webhookVerificationWorkflowType,
  type WebhookVerifyMode,
} from '../workflows/webhooks/definitions';

export interface VerificationStarterOptions {
  client: Client;
  taskQueue: string;
  mode: WebhookVerifyMode;
  /** WEBHOOK_ID; without it the worker looks up the listener's subscription. */
  webhookId?: string;
  /** Whose deliveries these are. */
  provider: ProviderName;
  /** How long a start may take before the delivery is answered 503 (the provider then delivers again). */
  startTimeoutMs?: number;
}

export interface StartedVerification {
  workflowId: string;
  /** True when this transmission already has a verification run: nothing new is started. */
  duplicate: boolean;
  /**
   * A duplicate whose run is still verifying: it may be a tampered copy that ends rejected, so this delivery
   * is not acknowledged yet (the provider delivers again, and then it is verified or a true duplicate).
   */
  stillVerifying?: boolean;
}

/**
 * The verification runs of an intake's deliveries: as its provider fixes them (`intake.verification`),
 * otherwise in the `configured` mode (WEBHOOK_VERIFY_MODE) and subscription (WEBHOOK_ID).
 */
export function verificationStarterFor(
  intake: DeliveryIntake,
  options: Pick<VerificationStarterOptions, 'client' | 'taskQueue'> & {
    configured?: { mode: WebhookVerifyMode; webhookId?: string };
  },
): VerificationStarter {
  const { client, taskQueue, configured } = options;
  const verification = intake.verification ?? configured;
  if (!verification) throw new Error(`the ${intake.provider} intake needs a configured verification mode`);
  return new VerificationStarter({
    client,
    taskQueue,
    provider: intake.provider as ProviderName,
    mode: verification.mode,
    ...(verification.webhookId !== undefined && { webhookId: verification.webhookId }),
  });
}

/** Starts one webhookVerification run per transmission; the only Temporal call on the delivery path. */
export class VerificationStarter {
  constructor(private readonly options: VerificationStarterOptions) {}

  /** Whose deliveries these are. */
  get provider(): ProviderName {
    return this.options.provider;
  }

  /** 'api' when the provider's API verifies each delivery, 'local' when the run checks its signature. */
  get mode(): WebhookVerifyMode {
    return this.options.mode;
  }

  async start(
    transmissionId: string,
    delivery: WebhookDelivery<string>,
    receivedAt: Date,
  ): Promise<StartedVerification> {
    const { client, taskQueue, mode, webhookId, provider, startTimeoutMs = 5_000 } = this.options;
    const workflowId = webhookVerificationWorkflowId(transmissionId);
    const deadline = Date.now() + startTimeoutMs;
    try {
      await client.withDeadline(deadline, () =>
        client.workflow.start<typeof webhookVerification>(webhookVerificationWorkflowType, {
          workflowId,
          taskQueue,
          args: [
            {
              delivery,
              receivedAt: receivedAt.toISOString(),
              mode,
              ...(webhookId && { webhookId }),
              provider,
            },
          ],
          // A completed run (a verified delivery) is never repeated: a replayed delivery id, even on another
          // body, is a duplicate. One that failed (a rejected delivery, a bug, a termination)
          // may be redone, so a refused verification never blocks the genuine delivery.
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
        }),
      );
      return { workflowId, duplicate: false };
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      const { status } = await client.withDeadline(deadline, () =>
        client.workflow.getHandle(workflowId).describe(),
      );
      return { workflowId, duplicate: true, stillVerifying: status.name === 'RUNNING' };
    }
  }
}
