import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { patched, upsertSearchAttributes } from '@temporalio/workflow';
import {
  AuthorizationIdKey,
  AuthorizationIdsKey,
  CaptureIdsKey,
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
  /**
   * Whether this run lists CaptureIds: asked once it has a capture. Only runs recorded between the two
   * patches do: a list that grows with every capture passes Temporal's size limit for one value (2 KiB) at
   * about a hundred captures, and the server then terminates the run. Refunds and reversals are routed by
   * the capture's authorization instead (AuthorizationId, AuthorizationIds).
   */
  private listsCaptures?: boolean;

  /** `recordedBeforeChecks`: the run may predate upserting only changes (it asks its patch). */
  constructor(
    private readonly state: LifecycleState,
    private readonly recordedBeforeChecks: boolean,
  ) {}

  /** The attributes set once per run: the authorization and the order. */
  identity(): SearchAttributeUpdatePair[] {
    return [
      { key: AuthorizationIdKey, value: this.state.authorizationId },
      ...(this.state.orderId ? [{ key: OrderIdKey, value: this.state.orderId }] : []),
    ];
  }

  show(alsoSet: SearchAttributeUpdatePair[] = []): void {
    const heldIds = heldAuthorizationIds(this.state);
    const failure = this.state.reauthorizationFailure?.reason;
    const captureIds = this.captureIds();
    const next = [this.state.status, failure ?? '', ...heldIds, ...(captureIds ?? [])].join(' ');
    // A history without this patch upserts on every change.
    const onlyChanges = !this.recordedBeforeChecks || patched('publish-only-changes');
    if (next === this.shown && alsoSet.length === 0 && onlyChanges) return;
    const failureChanged = failure !== this.shownFailure;
    this.shown = next;
    this.shownFailure = failure;
    upsertSearchAttributes([
      ...alsoSet,
      { key: PaymentStatusKey, value: this.state.status },
      { key: AuthorizationIdsKey, value: heldIds },
      ...(captureIds ? [{ key: CaptureIdsKey, value: captureIds }] : []),
      ...(failureChanged ? [{ key: ReauthorizationFailureKey, value: failure ?? null }] : []),
    ]);
  }

  private captureIds(): string[] | undefined {
    if (this.state.captures.length === 0) return undefined;
    this.listsCaptures ??= !patched('capture-ids-unlisted') && patched('capture-ids');
    return this.listsCaptures ? this.state.captures.map((capture) => capture.id) : undefined;
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
      (state.provider ? ` at ${state.provider}` : ''),
  ];
  if (state.nextTimer) lines.push(`Next timer: ${timerNames[state.nextTimer.kind]} at ${state.nextTimer.at}`);
  return lines.join('\n\n');
}
