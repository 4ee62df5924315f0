import { randomUUID } from 'node:crypto';
import type { Refund } from '../../../src/providers/resources';
import { capture, closedRun, lifecycleReaches, settledLifecycle, startLifecycle } from './lifecycles';
import type { RecordingStack } from './recording-stack';

// What happens at the provider outside the service, on a lifecycle the API captured: the provider's events
// of it reach the lifecycle only as signed deliveries, verified by webhook verification runs.

export interface CapturedLifecycle {
  authorizationId: string;
  captureId: string;
}

/** A lifecycle of 45.00 with 20.00 captured as the final capture, its event taken. */
export async function capturedLifecycle(
  stack: RecordingStack,
  lateEventWindow: string,
): Promise<CapturedLifecycle> {
  const authorizationId = await startLifecycle(stack, '45.00', { lateEventWindow });
  const captured = await capture(stack, authorizationId, `capture-${randomUUID()}`, {
    amount: '20.00',
    finalCapture: true,
  });
  await settledLifecycle(stack, authorizationId);
  return { authorizationId, captureId: captured.id };
}

/**
 * The merchant refunds 5.00 of a captured lifecycle's capture in the provider's dashboard, under a key of its
 * own; answers once the refund's event has reached the lifecycle.
 */
export async function dashboardRefundOfLifecycle(
  stack: RecordingStack,
  lateEventWindow: string,
): Promise<CapturedLifecycle & { refund: Refund }> {
  const captured = await capturedLifecycle(stack, lateEventWindow);
  const refund = await stack.dashboard.refundCapture({
    captureId: captured.captureId,
    amount: { currency_code: 'USD', value: '5.00' },
    idempotencyKey: `dashboard-${randomUUID()}`,
  });
  await lifecycleReaches(
    stack,
    captured.authorizationId,
    (state) => (state.refunds ?? []).some((each) => each.id === refund.id),
    `the dashboard refund ${refund.id}`,
  );
  return { ...captured, refund };
}

/** The payer's bank reverses the capture after the lifecycle closed; answers the reversal's id. */
export async function chargebackOfClosedLifecycle(
  stack: RecordingStack,
): Promise<CapturedLifecycle & { reversalId: string }> {
  const captured = await capturedLifecycle(stack, '1 second');
  await closedRun(stack, captured.authorizationId);
  const reversal = await stack.control.post<{ id: string }>(`/sandbox/captures/${captured.captureId}/reverse`);
  if (reversal.status !== 201) throw new Error(`reversal: ${reversal.status} ${JSON.stringify(reversal.data)}`);
  return { ...captured, reversalId: reversal.data.id };
}
