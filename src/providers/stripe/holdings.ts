import Stripe from 'stripe';
import type { PaymentEvent } from '../events';
import {
  emptyHoldings,
  findingId,
  refundFinding,
  type HoldingsRequest,
  type ProviderHoldings,
} from '../holdings';
import { fromStripeAmount } from './money';
import { disputeMovement, disputeStatuses } from './payment-event';
import { authorizationOf, isoTime, latestCharge, refundOf } from './resources';

// Reconciliation's read at Stripe: each PaymentIntent of the chain with its charge (what it captured in all,
// whether it is disputed), every refund of that charge (GET /v1/refunds?charge=…) and every dispute of it
// (GET /v1/disputes?charge=…), page by page. The charge says only that it is disputed; its disputes say how much
// they withdrew and whether the merchant won, so a dispute whose events never came is booked, not reported.

/** The resource, or undefined when Stripe does not know it (404). */
async function unlessMissing<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof Stripe.errors.StripeError && error.statusCode === 404) return undefined;
    throw error;
  }
}

/** The charge as a capture finding: all it captured (a multicapture intent's captures share it). */
function chargeFinding(intent: Stripe.PaymentIntent, charge: Stripe.Charge): PaymentEvent | undefined {
  const base = {
    captureId: charge.id,
    authorizationId: intent.id,
    createTime: isoTime(charge.created),
    finalCapture: intent.status !== 'requires_capture',
  };
  if (charge.status === 'failed') {
    const amount = fromStripeAmount(charge.amount, charge.currency);
    return { ...base, id: findingId(charge.id, 'failed'), eventType: 'capture.declined', amount };
  }
  if (!charge.captured || charge.amount_captured === 0) return undefined;
  const amount = fromStripeAmount(charge.amount_captured, charge.currency);
  return {
    ...base,
    id: findingId(charge.id, `captured-${charge.amount_captured}`),
    eventType: charge.status === 'pending' ? 'capture.pending' : 'capture.completed',
    amount,
  };
}

/** A dispute as read, as its latest event would say it: an inquiry, funds withdrawn, or reinstated (won). */
function disputeFinding(dispute: Stripe.Dispute, chargeId: string): PaymentEvent {
  const movement = disputeMovement('charge.dispute.updated', dispute.status);
  return {
    id: findingId(dispute.id, dispute.status),
    eventType: 'capture.reversed',
    captureId: chargeId,
    refundId: dispute.id,
    status: disputeStatuses[movement],
    movement,
    amount: fromStripeAmount(dispute.amount, dispute.currency),
    createTime: isoTime(dispute.created),
  };
}

export async function readStripeHoldings(
  stripe: Stripe,
  request: HoldingsRequest,
): Promise<ProviderHoldings> {
  const holdings = emptyHoldings();
  const listed = new Set<string>();
  const charges = new Set<string>();
  for (const id of request.authorizationIds) {
    const intent = await unlessMissing(() =>
      stripe.paymentIntents.retrieve(id, { expand: ['latest_charge'] }),
    );
    if (!intent) {
      holdings.absent.push(id);
      continue;
    }
    holdings.authorizations.push(authorizationOf(intent));
    const charge = latestCharge(intent);
    if (!charge) continue;
    charges.add(charge.id);
    const finding = chargeFinding(intent, charge);
    if (finding) holdings.findings.push(finding);
    for await (const refund of stripe.refunds.list({ charge: charge.id, limit: 100 })) {
      listed.add(refund.id);
      holdings.findings.push(refundFinding(refundOf(refund), charge.id));
    }
    let disputes = 0;
    for await (const dispute of stripe.disputes.list({ charge: charge.id, limit: 100 })) {
      disputes += 1;
      holdings.findings.push(disputeFinding(dispute, charge.id));
    }
    // A charge that says it is disputed and lists no dispute: what it withdrew is unknown.
    if (charge.disputed && disputes === 0) holdings.disputed.push(charge.id);
  }
  holdings.absent.push(
    ...request.captureIds.filter((id) => !charges.has(id)),
    ...request.refunds.filter((refund) => !listed.has(refund.id)).map((refund) => refund.id),
  );
  return holdings;
}
