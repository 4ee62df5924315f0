import { refundableAmount } from '../../src/workflows/lifecycle/refunds';
import { applyRefund } from '../../src/workflows/lifecycle/bookings';
import { capturedState, refundOf } from '../fixtures/lifecycle-state';

// Refunds booked into the lifecycle's ledger: what a capture has left, and how refunds move it on.

describe('refunds of a capture', () => {
  it('leave the capture what it has not had refunded, and mark it PARTIALLY_REFUNDED, then REFUNDED', () => {
    const state = capturedState('100.00', { C1: '60.00', C2: '40.00' });
    const capture = () => state.captures[0]!;
    expect(refundableAmount(state, capture())).toBe('60.00');

    applyRefund(state, refundOf('C1', 'R1', '15.50'));
    expect(capture()).toMatchObject({ status: 'PARTIALLY_REFUNDED', refundedAmount: '15.50' });
    expect(refundableAmount(state, capture())).toBe('44.50');
    expect(state.refundedAmount).toBe('15.50');

    applyRefund(state, refundOf('C1', 'R2', '44.50'));
    expect(capture()).toMatchObject({ status: 'REFUNDED', refundedAmount: '60.00' });
    expect(refundableAmount(state, capture())).toBe('0.00');
    expect(state.captures[1]?.status).toBe('COMPLETED');
    expect(state.refundedAmount).toBe('60.00');
  });

  it('count a refund once, keeping the key it was sent under when its webhook comes later', () => {
    const state = capturedState('100.00', { C1: '100.00' });
    applyRefund(state, refundOf('C1', 'R1', '10.00', { idempotencyKey: 'C1-k1', status: 'PENDING' }));
    applyRefund(state, refundOf('C1', 'R1', '10.00'));
    expect(state.refunds).toEqual([refundOf('C1', 'R1', '10.00', { idempotencyKey: 'C1-k1' })]);
    expect(state.captures[0]?.refundedAmount).toBe('10.00');
  });

  it('give nothing back when failed or cancelled', () => {
    const state = capturedState('100.00', { C1: '100.00' });
    applyRefund(state, refundOf('C1', 'R1', '30.00', { status: 'FAILED' }));
    applyRefund(state, refundOf('C1', 'R2', '30.00', { status: 'CANCELLED' }));
    expect(state.refunds).toHaveLength(2);
    expect(state.captures[0]).toMatchObject({ status: 'COMPLETED', refundedAmount: '0.00' });
    expect(refundableAmount(state, state.captures[0]!)).toBe('100.00');
  });

  it('mark a reversed capture REVERSED, whatever is left of it', () => {
    const state = capturedState('100.00', { C1: '100.00' });
    applyRefund(state, refundOf('C1', 'R1', '25.00', { kind: 'reversal' }));
    expect(state.captures[0]).toMatchObject({ status: 'REVERSED', refundedAmount: '25.00' });
  });

  it('of a capture the lifecycle does not hold are recorded without moving any capture', () => {
    const state = capturedState('100.00', { C1: '100.00' });
    applyRefund(state, refundOf('C9', 'R1', '5.00'));
    expect(state.refunds).toHaveLength(1);
    expect(state.captures[0]).toMatchObject({ status: 'COMPLETED' });
    expect(state.refundedAmount).toBeUndefined();
    expect(state.ledger.discrepancies).toEqual([
      expect.objectContaining({ invariant: 'refund of capture C9, which the ledger does not hold' }),
    ]);
  });
});
