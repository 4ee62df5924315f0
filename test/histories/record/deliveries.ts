import type { WorkflowHandle } from '@temporalio/client';
import type { PaymentEvent } from '../../../src/workflows/lifecycle/definitions';
import {
  webhookVerificationWorkflowId,
  type WebhookVerificationResult,
} from '../../../src/workflows/webhooks/definitions';
import { verificationResult } from '../../helpers/webhook-stack';
import type { RecordingStack } from './recording-stack';

/** A delivery the sandbox made, and how its verification run ended. */
export interface VerifiedDelivery {
  eventType: string;
  transmissionId: string;
  result: WebhookVerificationResult;
}

/**
 * Waits until the sandbox has delivered every event it has published (or given up on it) and each
 * delivery's verification run has ended: by then every lifecycle holds every signal it is going to get.
 */
export async function settledDeliveries(stack: RecordingStack): Promise<VerifiedDelivery[]> {
  await stack.sandbox.deliveriesSettled();
  const delivered = stack.sandbox.deliveries().filter((record) => record.delivered);
  return Promise.all(
    delivered.map(async ({ eventType, transmissionId }) => ({
      eventType,
      transmissionId,
      result: await verificationResult(stack.client, transmissionId),
    })),
  );
}

/** The verification run that delivered the event `concerns` picks out, once deliveries have settled. */
export async function verificationRunOf(
  stack: RecordingStack,
  concerns: (event: PaymentEvent) => boolean,
): Promise<WorkflowHandle> {
  const found = (await settledDeliveries(stack)).find(
    ({ result }) => result.outcome === 'delivered' && concerns(result.event),
  );
  if (!found) throw new Error('no verification run delivered the event looked for');
  return stack.client.workflow.getHandle(webhookVerificationWorkflowId(found.transmissionId));
}
