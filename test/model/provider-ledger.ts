import type { AxiosInstance } from 'axios';
import { toMinorUnits } from '../../src/currency-decimals';

// The provider's books for one lifecycle in a provider-neutral shape (PayPal's reading is here, Stripe's in
// stripe-ledger.ts), and the money invariants checked against them after every step.

export const CURRENCY = 'USD';

export interface ProviderRefund {
  id: string;
  minor: bigint;
  invoiceId?: string;
}

export interface ProviderCapture {
  id: string;
  status: string;
  minor: bigint;
  finalCapture: boolean;
  invoiceId?: string;
  /** Its refunds and its reversal that still hold money (not failed, canceled or reinstated), oldest first. */
  refunds: ProviderRefund[];
}

export interface ProviderLedger {
  authorizedMinor: bigint;
  /**
   * What the provider lets captures reach: PayPal 115 % of the authorized amount, at most 75.00 USD more; Stripe
   * the amount itself, or its charge's maximum_amount_capturable where the card allows overcapture.
   */
  allowedMinor: bigint;
  /**
   * The original authorization, then its reauthorization when there is one. Statuses in PayPal's words
   * (CREATED, CAPTURED, VOIDED); an authorization a reauthorization replaced is REPLACED.
   */
  chain: ProviderHold[];
  captures: ProviderCapture[];
}

/** One authorization of the chain, and what it still holds on the payer's card (0 once closed or replaced). */
export interface ProviderHold {
  id: string;
  status: string;
  heldMinor: bigint;
}

interface MoneyWire {
  currency_code: string;
  value: string;
}

export function minorOf(money: MoneyWire): bigint {
  const minor = money.currency_code === CURRENCY ? toMinorUnits(money.value, CURRENCY) : undefined;
  if (minor === undefined) throw new Error(`not a ${CURRENCY} amount: ${JSON.stringify(money)}`);
  return minor;
}

async function read<T>(provider: AxiosInstance, path: string): Promise<T> {
  const response = await provider.get<T>(path);
  if (response.status !== 200)
    throw new Error(`GET ${path}: ${response.status} ${JSON.stringify(response.data)}`);
  return response.data;
}

export async function readPayPalLedger(
  provider: AxiosInstance,
  authorizationId: string,
): Promise<ProviderLedger> {
  type AuthorizationWire = {
    id: string;
    status: string;
    amount: MoneyWire;
    links: Array<{ rel: string; href: string }>;
  };
  const original = await read<AuthorizationWire>(provider, `/v2/payments/authorizations/${authorizationId}`);
  const chain = [original];
  const next = original.links.find((link) => link.rel === 'reauthorization');
  if (next) chain.push(await read<AuthorizationWire>(provider, new URL(next.href).pathname));

  const captures: Array<ProviderCapture & { authorizationId: string }> = [];
  for (const authorization of chain) {
    type CaptureWire = {
      id: string;
      status: string;
      amount: MoneyWire;
      final_capture: boolean;
      invoice_id?: string;
    };
    const listed = await read<{ captures: CaptureWire[] }>(
      provider,
      `/sandbox/authorizations/${authorization.id}/captures`,
    );
    for (const capture of listed.captures) {
      type RefundWire = { id: string; status: string; amount: MoneyWire; invoice_id?: string };
      const { refunds } = await read<{ refunds: RefundWire[] }>(
        provider,
        `/sandbox/captures/${capture.id}/refunds`,
      );
      captures.push({
        authorizationId: authorization.id,
        id: capture.id,
        status: capture.status,
        minor: minorOf(capture.amount),
        finalCapture: capture.final_capture,
        invoiceId: capture.invoice_id,
        // A refund that failed or was canceled gave its money back: the capture's again.
        refunds: refunds
          .filter(({ status }) => status === 'COMPLETED')
          .map((refund) => ({
            id: refund.id,
            minor: minorOf(refund.amount),
            invoiceId: refund.invoice_id,
          })),
      });
    }
  }
  // PayPal keeps a reauthorized original CREATED (or PARTIALLY_CAPTURED); the money it held sits in its
  // reauthorization.
  const status = (authorization: AuthorizationWire, index: number) =>
    index < chain.length - 1 && isOpen(authorization.status) ? 'REPLACED' : authorization.status;
  const capturedOf = (id: string) =>
    captures.filter((capture) => capture.authorizationId === id && holdsMoney(capture));
  return {
    authorizedMinor: minorOf(original.amount),
    allowedMinor: minorOf(original.amount) + overCaptureOf(minorOf(original.amount)),
    chain: chain.map((authorization, index) => {
      const open = isOpen(status(authorization, index));
      const captured = capturedOf(authorization.id).reduce((sum, capture) => sum + capture.minor, 0n);
      const left = minorOf(authorization.amount) - captured;
      return {
        id: authorization.id,
        status: status(authorization, index),
        heldMinor: open && left > 0n ? left : 0n,
      };
    }),
    captures: captures.map(({ authorizationId: _authorizationId, ...capture }) => capture),
  };
}

/** Whether an authorization of the chain still holds money: not captured in full, voided or replaced. */
export function isOpen(status: string): boolean {
  return status === 'CREATED' || status === 'PARTIALLY_CAPTURED' || status === 'PENDING';
}

/** Captures that took money, as the provider counts them. */
export function holdsMoney(capture: ProviderCapture): boolean {
  return capture.status !== 'DECLINED' && capture.status !== 'FAILED';
}

export function capturedMinor(ledger: ProviderLedger): bigint {
  return ledger.captures.filter(holdsMoney).reduce((sum, capture) => sum + capture.minor, 0n);
}

export function refundedMinor(capture: ProviderCapture): bigint {
  return capture.refunds.reduce((sum, refund) => sum + refund.minor, 0n);
}

/**
 * The invariants of the provider's books: captured ≤ what the provider allows, refunded ≤ captured per capture, and
 * one money move per operation: every request carries an invoice id of its own (retries of a key send the
 * same), so two captures or two refunds under one invoice id are one operation acting twice.
 */
export function ledgerViolations(ledger: ProviderLedger): string[] {
  const violations: string[] = [];
  const captured = capturedMinor(ledger);
  if (captured > ledger.allowedMinor) {
    violations.push(`captured ${captured} minor units, more than the ${ledger.allowedMinor} allowed`);
  }
  for (const capture of ledger.captures) {
    if (refundedMinor(capture) > capture.minor) {
      violations.push(`capture ${capture.id}: refunded ${refundedMinor(capture)} of ${capture.minor}`);
    }
  }
  const moves = [
    ...ledger.captures.map((capture) => ({ kind: 'capture', id: capture.id, invoiceId: capture.invoiceId })),
    ...ledger.captures.flatMap((capture) =>
      capture.refunds.map((refund) => ({ kind: 'refund', id: refund.id, invoiceId: refund.invoiceId })),
    ),
  ];
  const byInvoice = new Map<string, string[]>();
  for (const move of moves.filter((each) => each.invoiceId !== undefined)) {
    const key = `${move.kind} ${move.invoiceId}`;
    byInvoice.set(key, [...(byInvoice.get(key) ?? []), move.id]);
  }
  for (const [operation, ids] of byInvoice) {
    if (ids.length > 1)
      violations.push(`${operation} acted ${ids.length} times at the provider: ${ids.join(', ')}`);
  }
  return violations;
}

/**
 * The holds of quiet books: at most one authorization of the chain holds money on the payer's card, and no more
 * than the authorization leaves (authorized less captured): a reauthorization never holds beyond what the payer
 * gave, and never leaves a second hold behind.
 */
export function holdViolations(ledger: ProviderLedger): string[] {
  const open = ledger.chain.filter((hold) => hold.heldMinor > 0n);
  const violations: string[] = [];
  if (open.length > 1) {
    violations.push(
      `${open.length} holds on the payer's card: ${open.map((hold) => `${hold.id} ${hold.heldMinor}`).join(', ')}`,
    );
  }
  const left = ledger.authorizedMinor - capturedMinor(ledger);
  for (const hold of open) {
    if (hold.heldMinor > (left > 0n ? left : 0n)) {
      violations.push(
        `${hold.id} holds ${hold.heldMinor} minor units, more than the ${left} the authorization leaves`,
      );
    }
  }
  return violations;
}

/**
 * The lifecycle status the provider's books call for, by the lifecycle's own rules (docs/lifecycle.md): voided,
 * open (nothing or part captured), or captured and then refunded or reversed. An order the lifecycle completed
 * is voided at the provider too: its status is its captures'.
 */
export function expectedStatus(
  ledger: ProviderLedger,
  reversals: ReadonlySet<string>,
  orderCompleted = false,
): string {
  const current = ledger.chain.at(-1)?.status;
  const voided = ledger.chain.some((authorization) => authorization.status === 'VOIDED');
  if (voided && !orderCompleted) return 'VOIDED';
  const captures = ledger.captures.filter(holdsMoney);
  if (current !== 'CAPTURED' && !orderCompleted) {
    return captures.length > 0 ? 'PARTIALLY_CAPTURED' : 'AUTHORIZED';
  }
  if (captures.some((capture) => capture.refunds.some((refund) => reversals.has(refund.id))))
    return 'REVERSED';
  if (captures.every((capture) => refundedMinor(capture) === capture.minor)) return 'REFUNDED';
  if (captures.some((capture) => refundedMinor(capture) > 0n)) return 'PARTIALLY_REFUNDED';
  return 'CAPTURED';
}

/** What PayPal lets captures add to a USD authorization of `authorizedMinor`: 15 %, at most 75.00. */
export function overCaptureOf(authorizedMinor: bigint): bigint {
  const byPercent = (authorizedMinor * 15n) / 100n;
  return byPercent < 7500n ? byPercent : 7500n;
}
