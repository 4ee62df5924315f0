import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import {
  beginAttempt,
  endAttempt,
  isDefiniteFailure,
  pendingAttempt,
} from '../../src/workflows/lifecycle/keyed-requests';
import type { PendingCapture } from '../../src/workflows/lifecycle/definitions';
import { authorizedState, usd } from '../fixtures/lifecycle-state';

// The keyed provider calls a lifecycle has sent and not had answered: what binds a lost answer to its key.

function captureAttempt(idempotencyKey: string, amount = '10.00'): PendingCapture {
  return {
    operation: 'capture',
    idempotencyKey,
    request: { amount },
    sentAt: '2026-01-01T00:00:00.000Z',
    sent: {
      authorizationId: 'A1',
      amount: usd(amount),
      finalCapture: false,
      idempotencyKey: `A1/capture/${idempotencyKey}`,
    },
  };
}

function failedCall(cause: ApplicationFailure): ActivityFailure {
  return new ActivityFailure(
    'failed',
    'captureAuthorization',
    '1',
    RetryState.MAXIMUM_ATTEMPTS_REACHED,
    'w',
    cause,
  );
}

describe('pending attempts', () => {
  it('are found by operation, key and the same request only', () => {
    const state = authorizedState();
    beginAttempt(state, captureAttempt('k1'));
    expect(pendingAttempt(state, 'capture', 'k1', { amount: '10.00' })).toEqual(captureAttempt('k1'));
    expect(pendingAttempt(state, 'capture', 'k1', { amount: '20.00' })).toBeUndefined();
    expect(pendingAttempt(state, 'capture', 'k2', { amount: '10.00' })).toBeUndefined();
    expect(pendingAttempt(state, 'refund', 'k1', { amount: '10.00' })).toBeUndefined();
    expect(pendingAttempt(authorizedState(), 'capture', 'k1', { amount: '10.00' })).toBeUndefined();
  });

  it('keep one per key (the latest), at most 100, and end with their answer', () => {
    const state = authorizedState();
    beginAttempt(state, captureAttempt('k1'));
    beginAttempt(state, captureAttempt('k1', '20.00'));
    expect(state.pendingAttempts).toEqual([captureAttempt('k1', '20.00')]);
    for (let n = 0; n < 120; n++) beginAttempt(state, captureAttempt(`n${n}`));
    expect(state.pendingAttempts).toHaveLength(100);
    expect(state.pendingAttempts?.[0]?.idempotencyKey).toBe('n20');
    endAttempt(state, captureAttempt('n20'));
    expect(pendingAttempt(state, 'capture', 'n20', { amount: '10.00' })).toBeUndefined();
    expect(state.pendingAttempts).toHaveLength(99);
  });

  it('end on a refusal, and stay after a call that got no answer', () => {
    const refused = ApplicationFailure.create({ type: 'AUTHORIZATION_VOIDED', nonRetryable: true });
    const noAnswer = ApplicationFailure.create({ type: 'NETWORK_ERROR', nonRetryable: false });
    expect(isDefiniteFailure(failedCall(refused))).toBe(true);
    expect(isDefiniteFailure(refused)).toBe(true);
    expect(isDefiniteFailure(failedCall(noAnswer))).toBe(false);
    expect(isDefiniteFailure(new Error('timed out'))).toBe(false);
  });
});
