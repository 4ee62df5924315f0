import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { carriedOver } from '../../src/workflows/lifecycle/start';
import { recordRefund } from '../../src/workflows/lifecycle/refunds';
import { applyCapture } from '../../src/workflows/lifecycle/state';
import { authorizedState, capturedState, refundOf, usd } from '../fixtures/lifecycle-state';

// The state a run carries over continue-as-new, or into a reopened lifecycle, as this version names it: a
// run continued from an earlier version keeps its answers and the keys of its captures and refunds.

const now = Date.parse('2026-11-25T12:00:00.000Z');
const HOUR = 60 * 60 * 1000;

/** A state as an earlier version carried it, whatever its shape. */
const earlier = (state: object) => state as unknown as LifecycleState;

describe('a carried-over state', () => {
  it('in this version’s names is carried as it is', () => {
    const state = capturedState('100.00', {});
    applyCapture(
      state,
      { id: 'C1', status: 'COMPLETED', amount: usd('40.00') },
      { amount: usd('40.00'), finalCapture: false, idempotencyKey: 'A1-k1' },
    );
    recordRefund(state, refundOf('C1', 'R1', '10.00', { idempotencyKey: 'C1-k2' }));
    state.keyedAnswers = [
      { idempotencyKey: 'k1', operation: 'capture', answer: { id: 'C1' }, keptUntil: 'later' },
    ];
    expect(carriedOver(structuredClone(state), HOUR, now)).toEqual(state);
  });

  it('keeps its idempotencyScheme, so a continued or reopened lifecycle sends the request ids it sent', () => {
    const state: LifecycleState = { ...authorizedState(), idempotencyScheme: 2 };
    expect(carriedOver(structuredClone(state), HOUR, now).idempotencyScheme).toBe(2);
    expect(carriedOver(authorizedState(), HOUR, now)).not.toHaveProperty('idempotencyScheme');
  });

  it("renames an earlier version's `key` on answers and `requestId` on captures and refunds", () => {
    const state = capturedState('100.00', { C1: '40.00', C2: '10.00' });
    recordRefund(state, refundOf('C1', 'R1', '10.00'));
    const carried = earlier({
      ...state,
      captures: [{ ...state.captures[0], requestId: 'A1-k1' }, state.captures[1]],
      refunds: [{ ...state.refunds?.[0], requestId: 'C1-k2' }],
      keyedAnswers: [
        { key: 'k1', operation: 'capture', request: {}, answer: { id: 'C1' }, keptUntil: 'later' },
      ],
    });

    const migrated = carriedOver(carried, HOUR, now);
    expect(migrated.captures).toEqual([{ ...state.captures[0], idempotencyKey: 'A1-k1' }, state.captures[1]]);
    expect(migrated.captures[0]).not.toHaveProperty('requestId');
    expect(migrated.refunds).toEqual([{ ...state.refunds?.[0], idempotencyKey: 'C1-k2' }]);
    expect(migrated.refunds?.[0]).not.toHaveProperty('requestId');
    expect(migrated.keyedAnswers).toEqual([
      { idempotencyKey: 'k1', operation: 'capture', request: {}, answer: { id: 'C1' }, keptUntil: 'later' },
    ]);
  });

  it('turns answers kept in a plain object into keyed answers kept for the retention from now', () => {
    const { keyedAnswers: _answers, ...state } = authorizedState();
    const migrated = carriedOver(earlier({ ...state, answeredKeys: { k1: { id: 'C1' } } }), HOUR, now);
    expect(migrated).not.toHaveProperty('answeredKeys');
    expect(migrated.keyedAnswers).toEqual([
      { idempotencyKey: 'k1', answer: { id: 'C1' }, keptUntil: '2026-11-25T13:00:00.000Z' },
    ]);
  });

  it('without refunds stays without them', () => {
    expect(carriedOver(authorizedState(), HOUR, now)).not.toHaveProperty('refunds');
  });
});
