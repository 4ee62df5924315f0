import {
  capturePlan,
  reauthorizeIdempotencyKey,
  refundPlan,
  voidIdempotencyKey,
} from '../../src/workflows/lifecycle/keyed-requests';
import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { authorizedState, capturedState } from '../fixtures/lifecycle-state';

// The keys provider calls carry: the same strings run after run, since a retry must repeat them exactly.

/** The provider's key of a capture under the caller's `idempotencyKey`. */
function captureKey(state: LifecycleState, idempotencyKey: string): string {
  return capturePlan(state, { idempotencyKey }, {}).sent.idempotencyKey;
}

describe("a provider call's idempotency key", () => {
  it("for a capture is the authorization, the operation and the caller's key", () => {
    expect(captureKey(authorizedState(), 'order-42-capture-1')).toBe('A1/capture/order-42-capture-1');
  });

  it('for a capture keeps the first authorization after a reauthorization', () => {
    const state = authorizedState();
    state.currentAuthorizationId = 'A2';
    expect(captureKey(state, 'k')).toBe('A1/capture/k');
  });

  it("for a refund is the capture, the operation and the caller's key", () => {
    const state = capturedState('100.00', { C1: '40.00' });
    const plan = refundPlan(state, { captureId: 'C1', idempotencyKey: 'order-42-refund-1' }, {});
    expect(plan.sent.idempotencyKey).toBe('C1/refund/order-42-refund-1');
  });

  it('for a void is one per lifecycle', () => {
    expect(voidIdempotencyKey(authorizedState())).toBe('authorization-A1-void');
  });

  it("for a reauthorization is the authorization, the operation and the caller's key, or the reason and its number", () => {
    const state = authorizedState();
    expect(reauthorizeIdempotencyKey(state, 'request', 'order-42-reauth')).toBe(
      'A1/reauthorize/order-42-reauth',
    );
    expect(reauthorizeIdempotencyKey(state, 'timer')).toBe('authorization-A1-reauthorize-timer-1');
    state.reauthorizations.push({
      fromAuthorizationId: 'A1',
      toAuthorizationId: 'A2',
      amount: { currency_code: 'USD', value: '100.00' },
      reason: 'timer',
      at: 't3',
    });
    expect(reauthorizeIdempotencyKey(state, 'request')).toBe('authorization-A1-reauthorize-request-2');
  });

  it('differs between operations: capture "reauthorize-X" and reauthorize "X"', () => {
    const state = authorizedState();
    expect(captureKey(state, 'reauthorize-X')).not.toBe(reauthorizeIdempotencyKey(state, 'request', 'X'));
  });
});
