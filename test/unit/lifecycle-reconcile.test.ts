import { emptyHoldings, type ProviderHoldings } from '../../src/providers/holdings';
import { isOpen } from '../../src/workflows/lifecycle/ledger/invariants';
import { bookHoldings, holdingsRequestOf } from '../../src/workflows/lifecycle/reconcile';
import { applyRefund } from '../../src/workflows/lifecycle/bookings';
import { capturedState, refundOf, usd } from '../fixtures/lifecycle-state';

// Reconciliation's booking (pure): what a read of the provider finds is booked once per reference, with
// source 'read'; what the ledger holds and the provider does not is recorded as a discrepancy.

const holdings = (fields: Partial<ProviderHoldings> = {}): ProviderHoldings => ({
  ...emptyHoldings(),
  authorizations: [{ id: 'A1', status: 'PARTIALLY_CAPTURED', amount: usd('100.00') }],
  findings: [
    {
      id: 'read:C1',
      eventType: 'capture.completed',
      captureId: 'C1',
      authorizationId: 'A1',
      amount: usd('40.00'),
    },
  ],
  ...fields,
});

const refundFinding = (
  refundId: string,
  value: string,
  movement: 'refund' | 'refund-returned' = 'refund',
) => ({
  id: `read:${refundId}`,
  eventType: 'capture.refunded' as const,
  captureId: 'C1',
  refundId,
  movement,
  status: movement === 'refund' ? 'COMPLETED' : 'FAILED',
  amount: usd(value),
});

describe('reconciliation', () => {
  it('asks about the authorization chain, the captures and the refunds the lifecycle knows', () => {
    const state = capturedState('100.00', { C1: '40.00' });
    applyRefund(state, refundOf('C1', 'R1', '10.00', { idempotencyKey: 'k' }));
    expect(holdingsRequestOf(state)).toEqual({
      authorizationIds: ['A1'],
      captureIds: ['C1'],
      refunds: [{ id: 'R1', captureId: 'C1' }],
    });
  });

  it('books a refund it never heard of with source read, once', () => {
    const state = capturedState('100.00', { C1: '40.00' });
    const found = holdings({ findings: [...holdings().findings, refundFinding('R9', '15.00')] });
    const first = bookHoldings(state, found, 'request', '2026-11-29T00:00:00.000Z');
    expect(first.booked).toEqual([
      expect.objectContaining({
        kind: 'refund',
        reference: 'R9',
        of: 'C1',
        minorUnits: '1500',
        source: 'read',
      }),
    ]);
    expect(state.refundedAmount).toBe('15.00');
    expect(bookHoldings(state, found, 'request', '2026-11-29T00:01:00.000Z').booked).toEqual([]);
  });

  it('books a refund the provider says failed as come back', () => {
    const state = capturedState('100.00', { C1: '40.00' });
    applyRefund(state, refundOf('C1', 'R1', '10.00', { idempotencyKey: 'k' }));
    const summary = bookHoldings(
      state,
      holdings({ findings: [refundFinding('R1', '10.00', 'refund-returned')] }),
      'close',
      '2026-11-29T00:00:00.000Z',
    );
    expect(summary.booked).toEqual([
      expect.objectContaining({ kind: 'refund-returned', reference: 'R1', source: 'read' }),
    ]);
    expect(summary.recorded).toEqual([]);
    expect(state.refundedAmount).toBe('0.00');
  });

  it('records a refund the provider does not hold, and a capture it holds less of, once each', () => {
    const state = capturedState('100.00', { C1: '40.00' });
    applyRefund(state, refundOf('C1', 'R1', '10.00', { idempotencyKey: 'k' }));
    const less = holdings({
      findings: [{ ...holdings().findings[0]!, amount: usd('30.00') }],
      absent: ['R1'],
    });
    const summary = bookHoldings(state, less, 'request', '2026-11-29T00:00:00.000Z');
    expect(summary.recorded).toEqual([
      expect.objectContaining({
        movement: expect.objectContaining({ kind: 'refund', reference: 'R1', source: 'read' }),
        invariant: expect.stringContaining('does not hold refund R1'),
      }),
      expect.objectContaining({
        movement: expect.objectContaining({ kind: 'capture', reference: 'C1', minorUnits: '3000' }),
        invariant: expect.stringContaining('holds 3000 captured by C1, the ledger 4000'),
      }),
    ]);
    expect(state.refundedAmount).toBe('10.00');
    expect(bookHoldings(state, less, 'request', '2026-11-29T00:01:00.000Z').recorded).toEqual([]);
    expect(state.ledger.discrepancies).toHaveLength(2);
  });

  it('releases a hold the provider let expire, and records a dispute no event brought', () => {
    const state = capturedState('100.00', { C1: '40.00' });
    const summary = bookHoldings(
      state,
      holdings({
        authorizations: [{ id: 'A1', status: 'EXPIRED', amount: usd('100.00') }],
        disputed: ['C1'],
      }),
      'close',
      '2026-11-29T00:00:00.000Z',
    );
    expect(summary.booked).toEqual([
      expect.objectContaining({ kind: 'release', reason: 'expiry', minorUnits: '6000', source: 'read' }),
    ]);
    expect(summary.recorded).toEqual([
      expect.objectContaining({ invariant: expect.stringContaining('C1 is disputed') }),
    ]);
    expect(state.remainingAmount).toBe('0.00');
  });

  describe('a capture the provider says is refunded without listing its refunds (PayPal)', () => {
    const read = (refunded: 'all' | 'some') =>
      holdings({ refundedUnlisted: [{ captureId: 'C1', refunded }] });

    it.each(['all', 'some'] as const)('records a refund refunded %s that the ledger lacks', (refunded) => {
      const state = capturedState('100.00', { C1: '40.00' });
      const summary = bookHoldings(state, read(refunded), 'request', '2026-11-29T00:00:00.000Z');
      expect(summary.recorded).toEqual([
        expect.objectContaining({
          movement: expect.objectContaining({
            kind: 'refund',
            of: 'C1',
            minorUnits: refunded === 'all' ? '4000' : '0',
          }),
          invariant: expect.stringContaining('the ledger books every refund'),
        }),
      ]);
      expect(state.refundedAmount ?? '0.00').toBe('0.00');
    });

    it('records nothing when the ledger books what the status says, and resolves what it recorded', () => {
      const state = capturedState('100.00', { C1: '40.00' });
      bookHoldings(state, read('some'), 'request', '2026-11-29T00:00:00.000Z');
      applyRefund(state, refundOf('C1', 'R1', '10.00'));
      const summary = bookHoldings(state, read('some'), 'request', '2026-11-29T01:00:00.000Z');
      expect(summary.recorded).toEqual([]);
      expect(summary.resolved).toHaveLength(1);
      expect(bookHoldings(state, read('all'), 'request', '2026-11-29T02:00:00.000Z').recorded).toHaveLength(
        1,
      );
    });
  });

  describe('an authorization the provider says is captured without listing its captures (PayPal)', () => {
    const read = (status: 'CAPTURED' | 'PARTIALLY_CAPTURED', findings = holdings().findings) =>
      holdings({
        authorizations: [{ id: 'A1', status, amount: usd('100.00') }],
        findings,
        capturedUnlisted: [{ authorizationId: 'A1', captured: status === 'CAPTURED' ? 'all' : 'some' }],
      });

    it('records a capture the ledger lacks, and resolves it once the capture is booked', () => {
      const state = capturedState('100.00', {});
      const summary = bookHoldings(
        state,
        read('PARTIALLY_CAPTURED', []),
        'request',
        '2026-11-29T00:00:00.000Z',
      );
      expect(summary.recorded).toEqual([
        expect.objectContaining({
          movement: expect.objectContaining({ kind: 'capture', of: 'A1', minorUnits: '0' }),
          invariant: expect.stringContaining('the ledger books every capture'),
        }),
      ]);
      expect(state.capturedAmount).toBe('0.00');
      const booked = bookHoldings(state, read('PARTIALLY_CAPTURED'), 'request', '2026-11-29T01:00:00.000Z');
      expect(booked.recorded).toEqual([]);
      expect(booked.resolved).toHaveLength(1);
    });

    it('records a hold captured in full when the ledger still has some of it to capture', () => {
      const state = capturedState('100.00', { C1: '40.00' });
      expect(
        bookHoldings(state, read('PARTIALLY_CAPTURED'), 'request', '2026-11-29T00:00:00.000Z').recorded,
      ).toEqual([]);
      const full = bookHoldings(state, read('CAPTURED'), 'request', '2026-11-29T01:00:00.000Z');
      expect(full.recorded).toEqual([
        expect.objectContaining({
          invariant: expect.stringMatching(/captured in full and the ledger books less/),
        }),
      ]);
    });
  });

  describe('a discrepancy a later read clears', () => {
    it('is resolved when a later read finds the provider holds what an earlier one missed', () => {
      const state = capturedState('100.00', { C1: '40.00' });
      applyRefund(state, refundOf('C1', 'R1', '10.00'));
      const missing = bookHoldings(
        state,
        holdings({ absent: ['R1'] }),
        'request',
        '2026-11-29T00:00:00.000Z',
      );
      expect(missing.recorded).toHaveLength(1);
      expect(state.ledger.discrepancies.filter(isOpen)).toHaveLength(1);

      const held = bookHoldings(state, holdings(), 'event-overdue', '2026-11-29T01:00:00.000Z');
      expect(held.recorded).toEqual([]);
      expect(held.resolved).toEqual([
        expect.objectContaining({
          movement: expect.objectContaining({ kind: 'refund', reference: 'R1' }),
          resolvedAt: '2026-11-29T01:00:00.000Z',
        }),
      ]);
      expect(state.ledger.discrepancies).toHaveLength(1);
      expect(state.ledger.discrepancies.filter(isOpen)).toEqual([]);
    });

    it('stays open while each read still misses it, and opens again when a read misses it once more', () => {
      const state = capturedState('100.00', { C1: '40.00' });
      applyRefund(state, refundOf('C1', 'R1', '10.00'));
      bookHoldings(state, holdings({ absent: ['R1'] }), 'request', '2026-11-29T00:00:00.000Z');
      const again = bookHoldings(state, holdings({ absent: ['R1'] }), 'request', '2026-11-29T01:00:00.000Z');
      expect(again).toMatchObject({ recorded: [], resolved: [] });
      expect(state.ledger.discrepancies.filter(isOpen)).toHaveLength(1);

      bookHoldings(state, holdings(), 'request', '2026-11-29T02:00:00.000Z');
      const reopened = bookHoldings(state, holdings({ absent: ['R1'] }), 'close', '2026-11-29T03:00:00.000Z');
      expect(reopened.recorded).toHaveLength(1);
      expect(state.ledger.discrepancies).toHaveLength(1);
      expect(state.ledger.discrepancies.filter(isOpen)).toHaveLength(1);
    });

    it('leaves a discrepancy an event recorded (an invariant it would break) to the operator', () => {
      const state = capturedState('100.00', { C1: '40.00' });
      const tooMuch = holdings({ findings: [...holdings().findings, refundFinding('R9', '45.00')] });
      bookHoldings(state, tooMuch, 'request', '2026-11-29T00:00:00.000Z');
      expect(state.ledger.discrepancies).toHaveLength(1);
      const later = bookHoldings(state, holdings(), 'request', '2026-11-29T01:00:00.000Z');
      expect(later.resolved).toEqual([]);
      expect(state.ledger.discrepancies.filter(isOpen)).toHaveLength(1);
    });
  });
});
