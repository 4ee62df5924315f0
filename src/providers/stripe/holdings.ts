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
import { authorizationOf, isoTime, latestCharge, refundOf } from './resources';

// Reconciliation's read at Stripe: each PaymentIntent of the chain with its charge (what it captured in all,
// whether it is disputed), and every refund of that charge (GET /v1/refunds?charge=…, page by page).

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
    if (charge.disputed) holdings.disputed.push(charge.id);
    for await (const refund of stripe.refunds.list({ charge: charge.id, limit: 100 })) {
      listed.add(refund.id);
      holdings.findings.push(refundFinding(refundOf(refund), charge.id));
    }
  }
  holdings.absent.push(
    ...request.captureIds.filter((id) => !charges.has(id)),
    ...request.refunds.filter((refund) => !listed.has(refund.id)).map((refund) => refund.id),
  );
  return holdings;
}
