import { WorkflowFailedError, type Client } from '@temporalio/client';
import type { DeliveryRecord } from '../src/sandbox/deliveries';
import { lifecycleWorkflowId, type LifecycleState } from '../src/workflows/lifecycle/definitions';
import {
  webhookVerificationWorkflowId,
  type WebhookVerificationResult,
} from '../src/workflows/webhooks/definitions';
import type { RelayedEvent } from './chaos-relay';
import type { BenchProvider } from './providers';
import { runBounded } from './stats';

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

/** What one verification run made of a delivery, and when it closed. */
interface VerificationRun {
  outcome: 'delivered' | 'unrouted' | 'rejected' | 'running' | 'failed' | 'none';
  reason?: string;
  closedAt?: Date;
}

const NO_RUNNING_LIFECYCLE = 'no running lifecycle holds authorization';

async function verificationRun(client: Client, deliveryId: string): Promise<VerificationRun> {
  const handle = client.workflow.getHandle(webhookVerificationWorkflowId(deliveryId));
  const described = await handle.describe().catch(() => undefined);
  if (!described) return { outcome: 'none' };
  if (described.status.name === 'RUNNING') return { outcome: 'running' };
  const closedAt = described.closeTime;
  try {
    const result = (await handle.result()) as WebhookVerificationResult;
    return result.outcome === 'delivered'
      ? { outcome: 'delivered', closedAt }
      : { outcome: result.outcome, reason: result.reason, closedAt };
  } catch (error) {
    const reason = error instanceof WorkflowFailedError ? error.cause?.message : String(error);
    return { outcome: 'failed', reason, closedAt };
  }
}

const describeRun = (run: VerificationRun) =>
  `${run.outcome}${run.reason ? ` (${run.reason})` : ''}${run.closedAt ? ` at ${run.closedAt.toISOString()}` : ''}`;

/**
 * Traces a capture event that no run of its lifecycle recorded: each attempt the provider made at delivering
 * it (its time, its answer) and what the service's verification run made of it (Stripe's deliveries share one
 * run per event, PayPal's have one per transmission; the relay's second transmissions are not among them).
 *
 * `late`: the service took the delivery and recorded it as unrouted because its lifecycle had closed (the
 * run came after the lifecycle's late-event window), while the lifecycle's books already held the capture it
 * reports as completed, from the provider's answer to the capture: the event arrived too late to be seen and
 * had nothing left to tell. Anything else is a lost delivery.
 */
export async function traceUnseenEvent(
  client: Client,
  provider: BenchProvider,
  record: DeliveryRecord | undefined,
  event: RelayedEvent,
  state: LifecycleState | undefined,
  lifecycleClosedAt: Date | undefined,
): Promise<{ late: boolean; lines: string[] }> {
  if (!record) return { late: false, lines: ['the provider has no delivery of it'] };
  const lines: string[] = [];
  const runs: VerificationRun[] = [];
  for (const attempt of record.attempts) {
    const answer = attempt.statusCode ?? attempt.error ?? '?';
    let detail = '';
    if (provider === 'paypal') {
      const run = await verificationRun(client, attempt.transmissionId);
      runs.push(run);
      detail = `, its run: ${describeRun(run)}`;
    }
    lines.push(`attempt ${attempt.attempt} at ${attempt.at} (${attempt.durationMs} ms): ${answer}${detail}`);
  }
  if (provider === 'stripe') {
    const run = await verificationRun(client, event.eventId);
    runs.push(run);
    lines.push(`the event's run: ${describeRun(run)}`);
  }
  if (record.gaveUp) lines.push('the provider gave up');
  const onBooks = state?.captures.some(
    (capture) =>
      (capture.id === event.captureId || capture.id.startsWith(`${event.captureId}-`)) &&
      capture.status === 'COMPLETED',
  );
  const unroutedAfterClose = runs.some(
    (run) =>
      run.outcome === 'unrouted' &&
      run.reason?.startsWith(NO_RUNNING_LIFECYCLE) &&
      lifecycleClosedAt !== undefined &&
      run.closedAt !== undefined &&
      run.closedAt >= lifecycleClosedAt,
  );
  return { late: Boolean(onBooks && unroutedAfterClose), lines };
}

/**
 * For each capture event the service delivered to its lifecycle: how long from the provider's first attempt
 * at delivering it to the signal that handed it to the lifecycle (ms). Measured against the late-event window,
 * this is the margin an event had before its lifecycle would have closed without it.
 */
export async function deliveryLatencies(
  client: Client,
  provider: BenchProvider,
  records: DeliveryRecord[],
): Promise<number[]> {
  const latencies: number[] = [];
  await runBounded(records.length, 16, async (i) => {
    const record = records[i] as DeliveryRecord;
    const first = record.attempts[0];
    const accepted = record.attempts.find((attempt) => attempt.statusCode === 202);
    if (!first || !accepted) return;
    const deliveryId = provider === 'paypal' ? accepted.transmissionId : record.eventId;
    const result = (await client.workflow
      .getHandle(webhookVerificationWorkflowId(deliveryId))
      .result()
      .catch(() => undefined)) as WebhookVerificationResult | undefined;
    if (result?.outcome === 'delivered')
      latencies.push(Date.parse(result.signalledAt) - Date.parse(first.at));
  });
  return latencies;
}
