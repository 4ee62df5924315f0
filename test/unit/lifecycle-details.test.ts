import { lifecycleSummary } from '../../src/workflows/lifecycle/definitions';
import { lifecycleDetails } from '../../src/workflows/lifecycle/visibility';
import { applyReauthorization, initialState } from '../../src/workflows/lifecycle/state';
import { applyCapture } from '../../src/workflows/lifecycle/bookings';

const DAY_MS = 24 * 60 * 60 * 1000;

const usd = (value: string) => ({ currency_code: 'USD', value });

describe('what the Web UI shows of a lifecycle', () => {
  it('summarizes a start by authorization and order', () => {
    expect(lifecycleSummary('A1', 'order-42')).toBe('Authorization A1 · order order-42');
    expect(lifecycleSummary('A1')).toBe('Authorization A1');
  });

  it('details status, amounts, the current authorization and the next timer', () => {
    const state = initialState(
      'authorization-A1',
      { id: 'A1', status: 'CREATED', amount: usd('100.00') },
      { expiryPolicy: 'void', maxCaptures: 100, provider: 'paypal', keyRetentionMs: DAY_MS },
      { createTime: 't0', reauthorizeAt: 't1', expiryPolicyAt: 't2', reasons: { expiryPolicy: 'r2' } },
    );
    applyCapture(
      state,
      { id: 'C1', status: 'COMPLETED', amount: usd('40.00') },
      { amount: usd('40.00'), finalCapture: false, idempotencyKey: 'r1' },
    );
    state.nextTimer = { kind: 'reauthorize', at: '2026-11-26T10:00:00.000Z' };
    expect(lifecycleDetails(state).split('\n\n')).toEqual([
      '**PARTIALLY_CAPTURED**: captured 40.00 of 100.00 USD, 60.00 remaining',
      'Authorization A1 at paypal',
      'Next timer: reauthorization at 2026-11-26T10:00:00.000Z',
    ]);

    applyReauthorization(state, { id: 'A2', status: 'CREATED', amount: usd('60.00') }, 'timer', 't3');
    state.nextTimer = undefined;
    expect(lifecycleDetails(state)).toContain('Authorization A2 (reauthorized from A1)');
    expect(lifecycleDetails(state)).not.toContain('Next timer');
  });
});
