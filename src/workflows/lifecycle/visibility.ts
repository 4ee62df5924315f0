import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { upsertSearchAttributes } from '@temporalio/workflow';
import {
  AuthorizationIdKey,
  AuthorizationIdsKey,
  OrderIdKey,
  PaymentStatusKey,
  ReauthorizationFailureKey,
} from '../search-attributes';
import type { LifecycleState } from './definitions';

// What operators see of a lifecycle: the search attributes they filter on and the details they read.

/** What operators filter on, upserted only when it changes: each upsert is a history event and a write. */
export class LifecycleVisibility {
  private shown = '';
  private shownFailure?: string;

  constructor(private readonly state: LifecycleState) {}

  /** Shows the state; `alsoSet` adds attributes set once per run (the identity, at start). */
  show(alsoSet: SearchAttributeUpdatePair[] = []): void {
    const heldIds = heldAuthorizationIds(this.state);
    const failure = this.state.reauthorizationFailure?.reason;
    const next = [this.state.status, failure ?? '', ...heldIds].join(' ');
    if (next === this.shown && alsoSet.length === 0) return;
    const failureChanged = failure !== this.shownFailure;
    this.shown = next;
    this.shownFailure = failure;
    upsertSearchAttributes([
      ...alsoSet,
      { key: PaymentStatusKey, value: this.state.status },
      { key: AuthorizationIdsKey, value: heldIds },
      ...(failureChanged ? [{ key: ReauthorizationFailureKey, value: failure ?? null }] : []),
    ]);
  }

  /** The attributes set once per run: the authorization and the order. */
  identity(): SearchAttributeUpdatePair[] {
    return [
      { key: AuthorizationIdKey, value: this.state.authorizationId },
      ...(this.state.orderId ? [{ key: OrderIdKey, value: this.state.orderId }] : []),
    ];
  }
}

function heldAuthorizationIds(state: LifecycleState): string[] {
  return [state.authorizationId, ...state.reauthorizations.map((record) => record.toAuthorizationId)];
}

const timerNames = { reauthorize: 'reauthorization', expiryPolicy: 'expiry policy', close: 'close' } as const;

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
