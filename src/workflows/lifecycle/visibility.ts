import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import {
  AuthorizationIdKey,
  AuthorizationIdsKey,
  HoldEndActionKey,
  HoldEndsAtKey,
  LedgerDiscrepanciesKey,
  OrderIdKey,
  PaymentStatusKey,
  ReauthorizationFailureKey,
} from '../search-attributes';
import { isOpen } from './ledger/invariants';
import type { ExpiryPolicy, LifecycleState } from './definitions';
import { isTerminal } from './bookings';
import { holdDeadline } from './timers';

// What operators see of a lifecycle: the search attributes they filter on and the details they read.

/**
 * What operators filter on, upserted only when it changes: each upsert is a history event and a write. The
 * client sets the identity and the starting status with the start (lifecycleStartAttributes), and a continued
 * run has its predecessor's, so a run upserts only what differs from the attributes it has.
 */
export class LifecycleVisibility {
  private shown: string;
  private shownFailure?: string;
  private shownDiscrepancies: number;
  private shownHold: string;
  private identityShown: boolean;

  constructor(private readonly state: LifecycleState) {
    const attributes = workflowInfo().typedSearchAttributes;
    this.shownFailure = attributes.get(ReauthorizationFailureKey);
    this.shown = shownOf(
      attributes.get(PaymentStatusKey),
      this.shownFailure,
      attributes.get(AuthorizationIdsKey) ?? [],
    );
    this.shownDiscrepancies = attributes.get(LedgerDiscrepanciesKey) ?? 0;
    const endsAt = attributes.get(HoldEndsAtKey);
    this.shownHold = endsAt ? `${endsAt.toISOString()} ${attributes.get(HoldEndActionKey)}` : '';
    this.identityShown =
      attributes.get(AuthorizationIdKey) === state.authorizationId &&
      attributes.get(OrderIdKey) === state.orderId;
  }

  show(): void {
    const heldIds = heldAuthorizationIds(this.state);
    const failure = this.state.reauthorizationFailure?.reason;
    const next = shownOf(this.state.status, failure, heldIds);
    const discrepancies = this.state.ledger.discrepancies.filter(isOpen).length;
    const discrepanciesChanged = discrepancies !== this.shownDiscrepancies;
    const hold = holdEnd(this.state);
    const holdShown = hold ? `${hold.endsAt.toISOString()} ${hold.action}` : '';
    const holdChanged = holdShown !== this.shownHold;
    // A hold reauthorized well before its end waits for the next upsert that happens anyway (the
    // reauthorization's own, at the latest): an untouched lifecycle's start then writes no upsert.
    const holdDue = holdChanged && (this.shownHold !== '' || hold?.reauthorizedInTime === false);
    const othersChanged = next !== this.shown || !this.identityShown || discrepanciesChanged;
    if (!othersChanged && !holdDue) return;
    const failureChanged = failure !== this.shownFailure;
    upsertSearchAttributes([
      ...(this.identityShown ? [] : this.identity()),
      { key: PaymentStatusKey, value: this.state.status },
      { key: AuthorizationIdsKey, value: heldIds },
      ...(failureChanged ? [{ key: ReauthorizationFailureKey, value: failure ?? null }] : []),
      ...(discrepanciesChanged ? [{ key: LedgerDiscrepanciesKey, value: discrepancies }] : []),
      ...(holdChanged
        ? [
            { key: HoldEndsAtKey, value: hold?.endsAt ?? null },
            { key: HoldEndActionKey, value: hold?.action ?? null },
          ]
        : []),
    ]);
    this.shown = next;
    this.shownFailure = failure;
    if (discrepanciesChanged) this.shownDiscrepancies = discrepancies;
    this.shownHold = holdShown;
    this.identityShown = true;
  }

  /** The attributes set once per run: the authorization and the order. */
  private identity(): SearchAttributeUpdatePair[] {
    return [
      { key: AuthorizationIdKey, value: this.state.authorizationId },
      ...(this.state.orderId ? [{ key: OrderIdKey, value: this.state.orderId }] : []),
    ];
  }
}

export type HoldEndAction = 'reauthorize' | ExpiryPolicy;

/** How long before its end a hold is at risk: the longest window operators and the holds metric look at. */
export const HOLD_RISK_HORIZON_MS = 72 * 60 * 60 * 1000;

/**
 * When the open lifecycle's current hold ends (the provider's expiration time, or the expiry policy's time
 * when the provider gives none) and what the lifecycle does before it: reauthorize when that timer comes
 * first, else its expiry policy (`void`, or `expire`: let it end). Undefined once the lifecycle has ended.
 */
export function holdEnd(
  state: LifecycleState,
): { endsAt: Date; action: HoldEndAction; reauthorizedInTime: boolean } | undefined {
  if (isTerminal(state)) return undefined;
  const endsAt = new Date(state.expirationTime ?? state.expiryPolicyAt);
  const first = holdDeadline(state);
  const reauthorizes = first.kind === 'reauthorize';
  return {
    endsAt,
    action: reauthorizes ? 'reauthorize' : state.expiryPolicy,
    reauthorizedInTime: reauthorizes && first.at <= endsAt.getTime() - HOLD_RISK_HORIZON_MS,
  };
}

/** A start that fails clears the status its client set with it: the run manages no authorization. */
export function clearStartingStatus(error: unknown): never {
  upsertSearchAttributes([{ key: PaymentStatusKey, value: null }]);
  throw error;
}

function shownOf(status: string | undefined, failure: string | undefined, heldIds: string[]): string {
  return [status ?? '', failure ?? '', ...heldIds].join(' ');
}

function heldAuthorizationIds(state: LifecycleState): string[] {
  return [state.authorizationId, ...state.reauthorizations.map((record) => record.toAuthorizationId)];
}

const timerNames = {
  reauthorize: 'reauthorization',
  expiryPolicy: 'expiry policy',
  reconcile: 'reconciliation (an event is overdue)',
  close: 'close',
} as const;

/** What the lifecycle is doing, for the Web UI's "current details" (markdown; decrypted by the codec server). */
export function lifecycleDetails(state: LifecycleState): string {
  const lines = [
    `**${state.status}**: captured ${state.capturedAmount} of ${state.authorizedAmount} ${state.currency}, ` +
      `${state.remainingAmount} remaining` +
      (state.refundedAmount ? `, ${state.refundedAmount} refunded` : ''),
    `Authorization ${state.currentAuthorizationId}` +
      (state.currentAuthorizationId !== state.authorizationId
        ? ` (reauthorized from ${state.authorizationId})`
        : '') +
      ` at ${state.provider}`,
  ];
  if (state.nextTimer) lines.push(`Next timer: ${timerNames[state.nextTimer.kind]} at ${state.nextTimer.at}`);
  return lines.join('\n\n');
}
