import type { PaymentEvent } from '../events';
import {
  emptyHoldings,
  findingId,
  refundFinding,
  type HoldingsRequest,
  type ProviderHoldings,
} from '../holdings';
import type { PaymentCapture } from '../resources';
import type { PayPalClient } from './client';
import { PaymentsApiError } from './errors';
import { capturedAuthorizationId } from './up-links';

// Reconciliation's read at PayPal: the authorization chain, each capture the lifecycle knows and each refund
// it knows, one GET each. PayPal lists no captures of an authorization and no refunds of a capture: a capture
// or refund made elsewhere (in the dashboard) whose event never came is told only by its authorization's or
// capture's status (capturedUnlisted, refundedUnlisted), not its id or amount.

/** The resource, or undefined when PayPal does not know it (404). */
async function unlessMissing<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof PaymentsApiError && error.status === 404) return undefined;
    throw error;
  }
}

const captureEvents = {
  COMPLETED: 'capture.completed',
  PARTIALLY_REFUNDED: 'capture.completed',
  REFUNDED: 'capture.completed',
  PENDING: 'capture.pending',
  DECLINED: 'capture.declined',
  FAILED: 'capture.declined',
} as const;

function captureFinding(capture: PaymentCapture): PaymentEvent {
  return {
    id: findingId(capture.id, capture.status),
    eventType: captureEvents[capture.status],
    captureId: capture.id,
    authorizationId: capture.authorization_id ?? capturedAuthorizationId(capture as { links?: unknown }),
    status: capture.status,
    ...(capture.amount && { amount: capture.amount }),
    ...(capture.final_capture !== undefined && { finalCapture: capture.final_capture }),
    ...(capture.create_time && { createTime: capture.create_time }),
  };
}

export async function readPaypalHoldings(
  client: PayPalClient,
  request: HoldingsRequest,
): Promise<ProviderHoldings> {
  const holdings = emptyHoldings();
  for (const id of request.authorizationIds) {
    const authorization = await unlessMissing(() => client.getAuthorization(id));
    if (!authorization) {
      holdings.absent.push(id);
      continue;
    }
    holdings.authorizations.push(authorization);
    if (authorization.status === 'CAPTURED' || authorization.status === 'PARTIALLY_CAPTURED') {
      holdings.capturedUnlisted.push({
        authorizationId: id,
        captured: authorization.status === 'CAPTURED' ? 'all' : 'some',
      });
    }
  }
  for (const id of request.captureIds) {
    const capture = await unlessMissing(() => client.getCapture(id));
    if (!capture) {
      holdings.absent.push(id);
      continue;
    }
    holdings.findings.push(captureFinding(capture));
    if (capture.status === 'PARTIALLY_REFUNDED' || capture.status === 'REFUNDED') {
      holdings.refundedUnlisted.push({
        captureId: id,
        refunded: capture.status === 'REFUNDED' ? 'all' : 'some',
      });
      holdings.unreadable.push(
        `capture ${id} is ${capture.status}: PayPal lists no refunds of a capture, so only the refunds the lifecycle knows are read`,
      );
    }
  }
  for (const known of request.refunds) {
    const refund = await unlessMissing(() => client.getRefund(known.id));
    if (refund) holdings.findings.push(refundFinding(refund, known.captureId));
    else holdings.absent.push(known.id);
  }
  return holdings;
}
