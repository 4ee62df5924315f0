import { ApplicationFailure } from '@temporalio/common';
import { LifecycleFailure } from '../../src/workflows/lifecycle/definitions';
import { applyCapture, applyEvent, markEnded } from '../../src/workflows/lifecycle/state';
import {
  assertDurationsWithinBounds,
  assertOpen,
  capturePlan,
  reauthorizeAmount,
  refundPlan,
} from '../../src/workflows/lifecycle/validation';
import {
  authorizedState,
  captureCompletedEvent,
  capturedState,
  refundOf,
  usd,
} from '../fixtures/lifecycle-state';
import { recordRefund } from '../../src/workflows/lifecycle/refunds';

// What the lifecycle's validators refuse before anything enters history, and the plans its commands follow.

/** The refusal `run` throws: its type and message. */
function refusal(run: () => unknown): { type: string | undefined | null; message: string } {
  try {
    run();
  } catch (error) {
    if (!(error instanceof ApplicationFailure)) throw error;
    expect(error.nonRetryable).toBe(true);
    return { type: error.type, message: error.message };
  }
  throw new Error('expected a refusal');
}

describe('duration bounds at start', () => {
  it('accepts durations within their bounds, and no durations', () => {
    expect(() => assertDurationsWithinBounds({ authorizationId: 'A1' })).not.toThrow();
    expect(() =>
      assertDurationsWithinBounds({
        authorizationId: 'A1',
        reauthorizeAfter: '3 days',
        lateEventWindow: 0,
        idempotencyKeyRetention: '30 days',
      }),
    ).not.toThrow();
  });

  it('refuses a duration out of bounds, or not a duration, naming the field and the rule', () => {
    expect(
      refusal(() => assertDurationsWithinBounds({ authorizationId: 'A1', timerCallTimeout: '2 days' })),
    ).toEqual({
      type: LifecycleFailure.invalidRequest,
      message:
        'timerCallTimeout: "2 days" is not a positive duration such as "3 days", "12h" or "90s", at most 1 day',
    });
    expect(
      refusal(() => assertDurationsWithinBounds({ authorizationId: 'A1', reauthorizeAfter: 0 })).message,
    ).toMatch(/^reauthorizeAfter: 0 is not a positive duration/);
    expect(
      refusal(() =>
        assertDurationsWithinBounds({ authorizationId: 'A1', expiryPolicyAfter: 'soon' as never }),
      ).message,
    ).toMatch(/^expiryPolicyAfter: "soon" is not/);
  });
});

describe('an open lifecycle', () => {
  it('allows a command until the lifecycle ends, then refuses it naming the status', () => {
    const state = authorizedState();
    expect(() => assertOpen(state, 'void')).not.toThrow();
    markEnded(state, 'VOIDED');
    expect(refusal(() => assertOpen(state, 'void'))).toEqual({
      type: LifecycleFailure.stateForbids,
      message: 'cannot void: the lifecycle is VOIDED',
    });
  });
});

describe('the capture plan', () => {
  it('captures what remains without an amount, and an amount with the currency decimals', () => {
    const state = authorizedState('100.00');
    expect(capturePlan(state, {})).toEqual({ amount: '100.00' });
    expect(capturePlan(state, { amount: '5' })).toEqual({ amount: '5.00' });
    expect(capturePlan(authorizedState('1000', { currency: 'JPY' }), { amount: '999' })).toEqual({
      amount: '999',
    });
  });

  it('refuses an amount that is not positive in the currency, and more than remains', () => {
    const state = capturedState('100.00', { C1: '60.00' });
    expect(refusal(() => capturePlan(state, { amount: '0.00' }))).toEqual({
      type: LifecycleFailure.invalidRequest,
      message: 'amount: "0.00" is not a positive amount in USD, which has 2 decimals',
    });
    expect(refusal(() => capturePlan(state, { amount: '1.001' })).type).toBe(LifecycleFailure.invalidRequest);
    expect(refusal(() => capturePlan(state, { amount: '40.01' }))).toEqual({
      type: LifecycleFailure.stateForbids,
      message: 'amount: 40.01 USD is more than the 40.00 that remains',
    });
  });

  it('refuses a capture when nothing remains, or the lifecycle ended', () => {
    expect(refusal(() => capturePlan(capturedState('100.00', { C1: '100.00' }), {})).message).toBe(
      'cannot capture: the lifecycle is CAPTURED',
    );
    const state = authorizedState();
    state.remainingAmount = '0.00';
    expect(refusal(() => capturePlan(state, {}))).toEqual({
      type: LifecycleFailure.stateForbids,
      message: 'cannot capture: nothing remains to capture',
    });
  });

  it('plans again, for a keyed retry, the capture a lost attempt made that no request claimed', () => {
    const state = authorizedState('100.00');
    // The first attempt's capture, learnt from the webhook: no key of ours on it.
    applyEvent(state, captureCompletedEvent('100.00', { finalCapture: true }), 't3');
    expect(state.status).toBe('CAPTURED');
    expect(capturePlan(state, { amount: '100', idempotencyKey: 'k1' })).toEqual({
      amount: '100.00',
      finalCapture: true,
    });
    expect(() => capturePlan(state, { amount: '100.00' })).toThrow(/cannot capture/);
    expect(() => capturePlan(state, { amount: '50.00', idempotencyKey: 'k1' })).toThrow(/cannot capture/);
  });

  it('does not plan again a capture a request already claimed', () => {
    const state = authorizedState('100.00');
    applyCapture(
      state,
      { id: 'C1', status: 'COMPLETED', amount: usd('100.00') },
      { amount: usd('100.00'), finalCapture: true, idempotencyKey: 'A1-k0' },
    );
    expect(() => capturePlan(state, { idempotencyKey: 'k1' })).toThrow(/cannot capture/);
  });
});

describe('the reauthorization amount', () => {
  it('is what remains without an amount, or the amount with the currency decimals', () => {
    const state = capturedState('100.00', { C1: '30.00' });
    expect(reauthorizeAmount(state, {})).toBe('70.00');
    expect(reauthorizeAmount(state, { amount: '80' })).toBe('80.00');
  });

  it('refuses an amount that is not positive, and an ended lifecycle', () => {
    const state = authorizedState();
    expect(refusal(() => reauthorizeAmount(state, { amount: '-1' })).type).toBe(
      LifecycleFailure.invalidRequest,
    );
    markEnded(state, 'EXPIRED');
    expect(refusal(() => reauthorizeAmount(state, {})).message).toBe(
      'cannot reauthorize: the lifecycle is EXPIRED',
    );
  });
});

describe('the refund plan', () => {
  it('refunds what the capture has not had refunded without an amount, or the amount asked', () => {
    const state = capturedState('100.00', { C1: '60.00', C2: '40.00' });
    expect(refundPlan(state, { captureId: 'C1' })).toEqual({ amount: '60.00' });
    recordRefund(state, refundOf('C1', 'R1', '15.00'));
    expect(refundPlan(state, { captureId: 'C1' })).toEqual({ amount: '45.00' });
    expect(refundPlan(state, { captureId: 'C1', amount: '45' })).toEqual({ amount: '45.00' });
  });

  it('refuses a capture the lifecycle does not hold, more than is left, and a capture not refundable', () => {
    const state = capturedState('100.00', { C1: '60.00' });
    expect(refusal(() => refundPlan(state, { captureId: 'C9' }))).toEqual({
      type: LifecycleFailure.invalidRequest,
      message: 'captureId: C9 is not a capture of authorization A1',
    });
    expect(refusal(() => refundPlan(state, { captureId: 'C1', amount: '60.01' }))).toEqual({
      type: LifecycleFailure.stateForbids,
      message: 'amount: 60.01 USD is more than the 60.00 capture C1 has not had refunded',
    });
    recordRefund(state, refundOf('C1', 'R1', '60.00'));
    expect(refusal(() => refundPlan(state, { captureId: 'C1' }))).toEqual({
      type: LifecycleFailure.stateForbids,
      message: 'cannot refund: capture C1 is REFUNDED',
    });
  });

  it('is taken after the lifecycle ended', () => {
    const state = capturedState('100.00', { C1: '100.00' });
    expect(state.status).toBe('CAPTURED');
    expect(refundPlan(state, { captureId: 'C1', amount: '1.00' })).toEqual({ amount: '1.00' });
  });

  it('plans again, for a keyed retry, the refund a lost attempt made that no request claimed', () => {
    const state = capturedState('100.00', { C1: '100.00' });
    recordRefund(state, refundOf('C1', 'R1', '100.00'));
    expect(refundPlan(state, { captureId: 'C1', amount: '100.00', idempotencyKey: 'k1' })).toEqual({
      amount: '100.00',
    });
    expect(() => refundPlan(state, { captureId: 'C1', amount: '100.00' })).toThrow(/cannot refund/);
    const claimed = capturedState('100.00', { C1: '100.00' });
    recordRefund(claimed, refundOf('C1', 'R1', '100.00', { idempotencyKey: 'C1-k0' }));
    expect(() => refundPlan(claimed, { captureId: 'C1', idempotencyKey: 'k1' })).toThrow(/cannot refund/);
  });
});
