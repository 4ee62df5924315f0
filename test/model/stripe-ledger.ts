import type { AxiosInstance } from 'axios';
import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import type { ProviderCapture, ProviderLedger, ProviderRefund } from './provider-ledger';

// Stripe's books for one lifecycle, in the model's shape. The chain is the intents: the original, then each
// reauthorization's new intent (it names the old in metadata.reauthorizes; the lifecycle records it). Each
// intent has one charge, the capture: what it captured is the intent's amount_received (all its captures,
// multicapture included), its refunds as Stripe lists them by charge (each succeeded or pending one; they
// sum to the charge's amount_refunded), and a dispute withdraws its own amount: what the charge had left when
// it opened (no refund is possible after; a later capture into the charge is not disputed), unless the
// merchant won it (reinstated). A refund that failed or was canceled holds no money.

interface ChargeWire {
  id: string;
  amount_captured: number;
  amount_refunded: number;
  disputed: boolean;
  currency: string;
  payment_method_details: {
    card: { overcapture: { status: string; maximum_amount_capturable: number } };
  };
}

interface IntentWire {
  id: string;
  /** requires_capture, succeeded or canceled. */
  status: string;
  amount: number;
  amount_capturable: number;
  amount_received: number;
  currency: string;
  metadata: Record<string, string>;
  latest_charge: ChargeWire;
}

/** The ledger's id for a charge's dispute (the API subset has no route that reads a dispute). */
export const disputeOf = (chargeId: string) => `dispute-of-${chargeId}`;

/**
 * Each disputed charge's dispute amount in cents, as the sandbox answered the dispute: Stripe's charge says only
 * that it is disputed, and this API subset has no route that reads a dispute.
 */
export const disputedAmounts = new Map<string, number>();

/** The charges whose dispute the merchant won: the funds it withdrew were reinstated. */
export const reinstatedDisputes = new Set<string>();

async function readIntent(provider: AxiosInstance, id: string): Promise<IntentWire> {
  const response = await provider.get<IntentWire>(`/v1/payment_intents/${id}`, {
    params: { 'expand[0]': 'latest_charge' },
  });
  if (response.status !== 200)
    throw new Error(`GET intent ${id}: ${response.status} ${JSON.stringify(response.data)}`);
  if (response.data.currency !== 'usd') throw new Error(`not a USD intent: ${response.data.currency}`);
  return response.data;
}

/** The intents the lifecycle moved to by reauthorization, oldest first. */
async function successors(api: AxiosInstance, authorizationId: string): Promise<string[]> {
  const response = await api.get<LifecycleState>(`/v1/lifecycles/${authorizationId}`);
  if (response.status !== 200) return [];
  return response.data.reauthorizations.map((record) => record.toAuthorizationId);
}

interface RefundWire {
  id: string;
  amount: number;
  status: string;
  metadata: Record<string, string>;
}

/** The charge's refunds that hold money, oldest first, checked against the charge's amount_refunded. */
async function refundsOf(provider: AxiosInstance, charge: ChargeWire): Promise<ProviderRefund[]> {
  const listed: RefundWire[] = [];
  for (let after: string | undefined; ;) {
    const response = await provider.get<{ data: RefundWire[]; has_more: boolean }>('/v1/refunds', {
      params: { charge: charge.id, limit: 100, ...(after && { starting_after: after }) },
    });
    if (response.status !== 200)
      throw new Error(`GET refunds of ${charge.id}: ${response.status} ${JSON.stringify(response.data)}`);
    listed.push(...response.data.data);
    after = response.data.data.at(-1)?.id;
    if (!response.data.has_more || after === undefined) break;
  }
  const refunds = listed
    .filter(({ status }) => status === 'succeeded' || status === 'pending')
    .reverse()
    .map((refund) => ({
      id: refund.id,
      minor: BigInt(refund.amount),
      ...(refund.metadata.invoice_id && { invoiceId: refund.metadata.invoice_id }),
    }));
  const sum = refunds.reduce((total, refund) => total + refund.minor, 0n);
  if (sum !== BigInt(charge.amount_refunded))
    throw new Error(
      `${charge.id}: its refunds sum to ${sum}, its amount_refunded is ${charge.amount_refunded}`,
    );
  return refunds;
}

async function captureOf(provider: AxiosInstance, intent: IntentWire): Promise<ProviderCapture | undefined> {
  const charge = intent.latest_charge;
  if (intent.amount_received === 0) return undefined;
  const refunds = await refundsOf(provider, charge);
  if (charge.disputed && !reinstatedDisputes.has(charge.id)) {
    const amount = disputedAmounts.get(charge.id);
    if (amount === undefined) throw new Error(`charge ${charge.id} is disputed, but not by the model`);
    refunds.push({ id: disputeOf(charge.id), minor: BigInt(amount) });
  }
  return {
    id: charge.id,
    status: 'COMPLETED',
    minor: BigInt(intent.amount_received),
    finalCapture: intent.status !== 'requires_capture',
    // The invoice id of its latest capture (each capture writes it into the intent's metadata).
    invoiceId: intent.metadata.invoice_id,
    refunds,
  };
}

/** An intent's status in the chain's words (provider-ledger.ts). */
function chainStatus(intent: IntentWire, replaced: boolean): string {
  if (replaced) return 'REPLACED';
  if (intent.status === 'canceled') return 'VOIDED';
  if (intent.status === 'succeeded') return 'CAPTURED';
  return 'CREATED';
}

export async function readStripeLedger(
  provider: AxiosInstance,
  api: AxiosInstance,
  authorizationId: string,
): Promise<ProviderLedger> {
  const ids = [authorizationId, ...(await successors(api, authorizationId))];
  const intents = await Promise.all(ids.map((id) => readIntent(provider, id)));
  for (const [index, intent] of intents.entries()) {
    const previous = intents[index - 1];
    if (previous && intent.metadata.reauthorizes !== previous.id) {
      throw new Error(`${intent.id} does not name ${previous.id} in metadata.reauthorizes`);
    }
  }
  const original = intents[0];
  if (!original) throw new Error(`no intent ${authorizationId}`);
  return {
    authorizedMinor: BigInt(original.amount),
    // Stripe captures no more than an intent holds, or its charge's maximum where the card allows overcapture.
    allowedMinor: intents.reduce((most, intent) => {
      const { overcapture } = intent.latest_charge.payment_method_details.card;
      const allowed =
        overcapture.status === 'available' ? overcapture.maximum_amount_capturable : intent.amount;
      return BigInt(allowed) > most ? BigInt(allowed) : most;
    }, 0n),
    chain: intents.map((intent, index) => ({
      id: intent.id,
      status: chainStatus(intent, index < intents.length - 1 && intent.status === 'canceled'),
      heldMinor: intent.status === 'requires_capture' ? BigInt(intent.amount_capturable) : 0n,
    })),
    captures: (await Promise.all(intents.map((intent) => captureOf(provider, intent)))).flatMap(
      (capture) => capture ?? [],
    ),
  };
}
