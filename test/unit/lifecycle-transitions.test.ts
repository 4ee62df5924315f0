import { applyEvent, applyReauthorization, canManage, markEnded } from '../../src/workflows/lifecycle/state';
import { applyCapture, isTerminal } from '../../src/workflows/lifecycle/bookings';
import { holdsMoney } from '../../src/workflows/lifecycle/money';
import { authorizedState, captureCompletedEvent, capturedState, usd } from '../fixtures/lifecycle-state';

// State transitions that lifecycle-state.test.ts and lifecycle-refund-events.test.ts leave out.

describe('an authorization the lifecycle takes', () => {
  it('is CREATED, PENDING or PARTIALLY_CAPTURED', () => {
    const authorization = (status: string) => ({ id: 'A1', status, amount: usd('1.00') }) as never;
    expect(
      ['CREATED', 'PENDING', 'PARTIALLY_CAPTURED'].map((status) => canManage(authorization(status))),
    ).toEqual([true, true, true]);
    expect(
      ['CAPTURED', 'VOIDED', 'DENIED', 'EXPIRED'].some((status) => canManage(authorization(status))),
    ).toBe(false);
  });
});

describe('an ended lifecycle', () => {
  it('holds nothing more to capture, and is terminal', () => {
    const state = capturedState('100.00', { C1: '30.00' });
    expect(isTerminal(state)).toBe(false);
    markEnded(state, 'VOIDED');
    expect(state).toMatchObject({ status: 'VOIDED', remainingAmount: '0.00', capturedAmount: '30.00' });
    expect(isTerminal(state)).toBe(true);
  });

  it('stays VOIDED whatever capture arrives late', () => {
    const state = authorizedState();
    markEnded(state, 'VOIDED');
    applyCapture(
      state,
      { id: 'C1', status: 'COMPLETED', amount: usd('10.00') },
      { amount: usd('10.00'), finalCapture: false },
    );
    expect(state.status).toBe('VOIDED');
  });
});

describe('a capture record', () => {
  it('holds money unless it was declined or failed', () => {
    const record = (status: 'COMPLETED' | 'PENDING' | 'REFUNDED' | 'DECLINED' | 'FAILED') => ({
      id: 'C1',
      authorizationId: 'A1',
      status,
      amount: usd('1.00'),
      finalCapture: false,
    });
    expect(holdsMoney(record('COMPLETED'))).toBe(true);
    expect(holdsMoney(record('PENDING'))).toBe(true);
    expect(holdsMoney(record('REFUNDED'))).toBe(true);
    expect(holdsMoney(record('DECLINED'))).toBe(false);
    expect(holdsMoney(record('FAILED'))).toBe(false);
  });

  it("learnt from a webhook first takes the key of the request that made it when the provider's answer comes", () => {
    const state = authorizedState();
    applyEvent(state, captureCompletedEvent('40.00'), 't3');
    expect(state.captures[0]?.idempotencyKey).toBeUndefined();
    applyCapture(
      state,
      { id: 'C1', status: 'COMPLETED', amount: usd('40.00') },
      { amount: usd('40.00'), finalCapture: false, idempotencyKey: 'A1-k1' },
    );
    expect(state.captures).toHaveLength(1);
    expect(state.captures[0]?.idempotencyKey).toBe('A1-k1');
    // A later answer without a key (a webhook's capture applied again) keeps it.
    applyCapture(
      state,
      { id: 'C1', status: 'COMPLETED', amount: usd('40.00') },
      { amount: usd('40.00'), finalCapture: false },
    );
    expect(state.captures[0]?.idempotencyKey).toBe('A1-k1');
    expect(state).toMatchObject({ capturedAmount: '40.00', remainingAmount: '60.00' });
  });

  it('completed is not declined by a later event', () => {
    const state = capturedState('100.00', { C1: '30.00' });
    const declined = applyEvent(
      state,
      { id: 'WH-2', eventType: 'capture.declined', authorizationId: 'A1', captureId: 'C1' },
      't3',
    );
    expect(declined).toMatchObject({
      applied: false,
      note: 'capture C1 is COMPLETED; DECLINED would move it backwards',
    });
    expect(state).toMatchObject({
      status: 'PARTIALLY_CAPTURED',
      remainingAmount: '70.00',
      capturedAmount: '30.00',
    });
  });
});

describe('a capture of an earlier authorization heard of after a reauthorization', () => {
  // Found by the money model: [DashboardCapture(30.00), Reauthorize(40.00, answer lost), RestartWorker()].
  const reauthorized = () => {
    const state = authorizedState();
    applyReauthorization(state, { id: 'A2', status: 'CREATED', amount: usd('40.00') }, 'request', 'now');
    return state;
  };

  it('is counted against its own authorization, leaving the current one whole', () => {
    const state = reauthorized();
    const recorded = applyEvent(state, captureCompletedEvent('30.00'), 'now');
    expect(recorded.applied).toBe(true);
    expect(state).toMatchObject({
      status: 'PARTIALLY_CAPTURED',
      capturedAmount: '30.00',
      remainingAmount: '40.00',
    });
    expect(state.captures[0]).toMatchObject({ id: 'C1', authorizationId: 'A1' });
  });

  it('is refused for an authorization the lifecycle never held', () => {
    const state = reauthorized();
    const recorded = applyEvent(state, captureCompletedEvent('30.00', { authorizationId: 'A9' }), 'now');
    expect(recorded.applied).toBe(false);
    expect(state.captures).toEqual([]);
  });
});
