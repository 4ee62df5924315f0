import {
  captureIdempotencyKey,
  reauthorizeIdempotencyKey,
  refundIdempotencyKey,
  voidIdempotencyKey,
} from '../../src/workflows/lifecycle/provider-keys';
import { authorizedState } from '../fixtures/lifecycle-state';

// The keys provider calls carry: the same strings run after run, since a retry must repeat them exactly.

describe("a provider call's idempotency key", () => {
  it("for a capture is the authorization, the operation and the caller's key, or the workflow and the capture's number", () => {
    const state = authorizedState();
    state.captureSequence = 3;
    expect(captureIdempotencyKey(state, 'order-42-capture-1')).toBe('A1/capture/order-42-capture-1');
    expect(captureIdempotencyKey(state)).toBe('authorization-A1-capture-3');
    expect(captureIdempotencyKey(state, '')).toBe('authorization-A1-capture-3');
  });

  it('for a capture keeps the first authorization after a reauthorization', () => {
    const state = authorizedState();
    state.currentAuthorizationId = 'A2';
    expect(captureIdempotencyKey(state, 'k')).toBe('A1/capture/k');
  });

  it("for a refund is the capture, the operation and the caller's key, or the workflow and the refund's number", () => {
    const state = authorizedState();
    state.refundSequence = 2;
    expect(refundIdempotencyKey(state, { captureId: 'C1', idempotencyKey: 'order-42-refund-1' })).toBe(
      'C1/refund/order-42-refund-1',
    );
    expect(refundIdempotencyKey(state, { captureId: 'C1' })).toBe('authorization-A1-refund-2');
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
    expect(captureIdempotencyKey(state, 'reauthorize-X')).not.toBe(
      reauthorizeIdempotencyKey(state, 'request', 'X'),
    );
  });
});
