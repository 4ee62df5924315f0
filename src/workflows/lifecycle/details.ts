import type { LifecycleState } from './definitions';

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
        : ''),
  ];
  if (state.nextTimer) lines.push(`Next timer: ${timerNames[state.nextTimer.kind]} at ${state.nextTimer.at}`);
  return lines.join('\n\n');
}
