import { WorkflowFailedError, type Client } from '@temporalio/client';
import type { DeliveryRecord } from '../src/sandbox/deliveries';
import { lifecycleWorkflowId, type LifecycleState } from '../src/workflows/lifecycle/definitions';
import {
  webhookVerificationWorkflowId,
  type WebhookVerificationResult,
} from '../src/workflows/webhooks/definitions';
import type { BenchProvider } from './providers';

// The chaos bench's account of a capture event that its lifecycle's final state does not show: whether a
// later run of the lifecycle shows it, and otherwise what became of each transmission of it.

/** The lifecycle's runs, newest first, and whether any of them recorded the event. */
export async function lifecycleRunsSeeing(
  client: Client,
  authorizationId: string,
  eventId: string,
): Promise<{ runs: number; seenInRun?: string }> {
  const workflowId = lifecycleWorkflowId(authorizationId);
  const runIds: string[] = [];
  for await (const run of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    runIds.push(run.runId);
  }
  for (const runId of runIds) {
    const state = (await client.workflow
      .getHandle(workflowId, runId, { followRuns: false })
      .result()
      .catch(() => undefined)) as LifecycleState | undefined;
    if (state?.seenEventIds.includes(eventId)) return { runs: runIds.length, seenInRun: runId };
  }
  return { runs: runIds.length };
}

/** What one verification run made of a transmission: delivered, unrouted (why), rejected, running, none. */
async function verificationOutcome(client: Client, transmissionId: string): Promise<string> {
  const handle = client.workflow.getHandle(webhookVerificationWorkflowId(transmissionId));
  const status = await handle
    .describe()
    .then((run) => run.status.name)
    .catch(() => undefined);
  if (!status) return 'no run';
  if (status === 'RUNNING') return 'still running';
  try {
    const result = (await handle.result()) as WebhookVerificationResult;
    return result.outcome === 'delivered' ? 'delivered' : `${result.outcome}: ${result.reason}`;
  } catch (error) {
    return error instanceof WorkflowFailedError ? `failed: ${error.cause?.message}` : `${status}`;
  }
}

/**
 * Each attempt the provider made at delivering the event (its time, its answer) and, where it started one,
 * what the service's verification run made of it. Stripe's deliveries share one run per event; PayPal's
 * have one per transmission. The relay's second transmissions are not among the attempts.
 */
export async function deliveryTrail(
  client: Client,
  provider: BenchProvider,
  record: DeliveryRecord | undefined,
  eventId: string,
): Promise<string[]> {
  if (!record) return ['the provider has no delivery of it'];
  const lines: string[] = [];
  for (const attempt of record.attempts) {
    const answer = attempt.statusCode ?? attempt.error ?? '?';
    const run =
      provider === 'paypal' ? `, its run: ${await verificationOutcome(client, attempt.transmissionId)}` : '';
    lines.push(`attempt ${attempt.attempt} at ${attempt.at} (${attempt.durationMs} ms): ${answer}${run}`);
  }
  if (provider === 'stripe') lines.push(`the event's run: ${await verificationOutcome(client, eventId)}`);
  if (record.gaveUp) lines.push('the provider gave up');
  return lines;
}
