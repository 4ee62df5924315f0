import { formatMinorUnits, toMinorUnits } from '../../src/currency-decimals';
import { assertCapturedKnown } from '../../src/workflows/lifecycle/start';
import { applyEvent, applyReauthorization, initialState } from '../../src/workflows/lifecycle/state';
import { applyCapture } from '../../src/workflows/lifecycle/bookings';
import { captureAmount, inLifecycleCurrency } from '../../src/workflows/lifecycle/validation';
import { authorizedState, captureCompletedEvent, usd } from '../fixtures/lifecycle-state';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('amounts in minor units', () => {
  it("converts decimal strings exactly, with each currency's ISO 4217 decimals", () => {
    expect(toMinorUnits('0.10', 'USD')).toBe(10n);
    expect(toMinorUnits('19.99', 'USD')).toBe(1999n);
    expect(toMinorUnits('5', 'USD')).toBe(500n);
    expect(toMinorUnits('1000', 'JPY')).toBe(1000n);
    expect(toMinorUnits('1.234', 'KWD')).toBe(1234n);
    expect(formatMinorUnits(7n, 'USD')).toBe('0.07');
    expect(formatMinorUnits(1999n, 'USD')).toBe('19.99');
    expect(formatMinorUnits(1000n - 1n, 'JPY')).toBe('999');
    expect(formatMinorUnits(5n, 'KWD')).toBe('0.005');
  });

  it('stays exact beyond what a JavaScript number holds', () => {
    const authorized = toMinorUnits('99999999999999999999.99', 'USD') ?? 0n;
    expect(formatMinorUnits(authorized - (toMinorUnits('0.01', 'USD') ?? 0n), 'USD')).toBe(
      '99999999999999999999.98',
    );
  });

  it('refuses more decimals than the currency has, unknown currencies and non-decimals', () => {
    expect(toMinorUnits('1.5', 'JPY')).toBeUndefined();
    expect(toMinorUnits('1.0', 'JPY')).toBeUndefined();
    expect(toMinorUnits('1.001', 'USD')).toBeUndefined();
    expect(toMinorUnits('1.2345', 'KWD')).toBeUndefined();
    expect(toMinorUnits('1.00', 'XYZ')).toBeUndefined();
    expect(toMinorUnits('-1.00', 'USD')).toBeUndefined();
    expect(toMinorUnits('1e3', 'USD')).toBeUndefined();
    expect(() => formatMinorUnits(1n, 'XYZ')).toThrow(RangeError);
  });
});

describe('lifecycle state transitions', () => {
  it('counts partial captures and ends CAPTURED when nothing remains', () => {
    const state = authorizedState();
    applyCapture(
      state,
      { id: 'C1', status: 'COMPLETED', amount: usd('30.10') },
      { amount: usd('30.10'), finalCapture: false },
    );
    expect(state).toMatchObject({
      status: 'PARTIALLY_CAPTURED',
      capturedAmount: '30.10',
      remainingAmount: '69.90',
    });
    applyCapture(
      state,
      { id: 'C2', status: 'COMPLETED', amount: usd('69.90') },
      { amount: usd('69.90'), finalCapture: false },
    );
    expect(state).toMatchObject({ status: 'CAPTURED', capturedAmount: '100.00', remainingAmount: '0.00' });
  });

  it('a final capture releases the rest', () => {
    const state = authorizedState();
    applyCapture(
      state,
      { id: 'C1', status: 'COMPLETED', amount: usd('10.00'), final_capture: true },
      { amount: usd('10.00'), finalCapture: true },
    );
    expect(state).toMatchObject({ status: 'CAPTURED', capturedAmount: '10.00', remainingAmount: '0.00' });
  });

  it('counts a capture once when its webhook arrives before the provider answer', () => {
    const state = authorizedState();
    applyEvent(
      state,
      {
        id: 'WH-1',
        eventType: 'capture.completed',
        authorizationId: 'A1',
        captureId: 'C1',
        amount: usd('40.00'),
      },
      'now',
    );
    applyCapture(
      state,
      { id: 'C1', status: 'COMPLETED', amount: usd('40.00') },
      { amount: usd('40.00'), finalCapture: false },
    );
    expect(state.captures).toHaveLength(1);
    expect(state).toMatchObject({ capturedAmount: '40.00', remainingAmount: '60.00' });
  });

  it('a pending capture completes or is denied by its event, never backwards', () => {
    const state = authorizedState('50.00');
    applyCapture(
      state,
      { id: 'C1', status: 'PENDING', amount: usd('50.00') },
      { amount: usd('50.00'), finalCapture: false },
    );
    expect(state.status).toBe('CAPTURE_PENDING');
    const denied = applyEvent(
      state,
      { id: 'WH-2', eventType: 'capture.declined', authorizationId: 'A1', captureId: 'C1' },
      'now',
    );
    expect(denied.applied).toBe(true);
    expect(state).toMatchObject({ status: 'AUTHORIZED', remainingAmount: '50.00', capturedAmount: '0.00' });
    const late = applyEvent(
      state,
      { id: 'WH-3', eventType: 'capture.completed', authorizationId: 'A1', captureId: 'C1' },
      'now',
    );
    expect(late).toMatchObject({ applied: false });
    expect(state.captures[0]?.status).toBe('DECLINED');
  });

  it('records the webhook that confirms a capture the lifecycle made, without counting it again', () => {
    const state = authorizedState();
    applyCapture(
      state,
      { id: 'C1', status: 'COMPLETED', amount: usd('40.00') },
      { amount: usd('40.00'), finalCapture: false },
    );
    const confirmation = applyEvent(
      state,
      {
        id: 'WH-9',
        eventType: 'capture.completed',
        authorizationId: 'A1',
        captureId: 'C1',
        amount: usd('40.00'),
      },
      'now',
    );
    expect(confirmation).toMatchObject({ applied: false, note: 'capture C1 is already COMPLETED' });
    expect(state).toMatchObject({ capturedAmount: '40.00', remainingAmount: '60.00' });
    expect(state.recentEvents).toHaveLength(1);
  });

  it('ignores a duplicate event, a void after a capture, and a void of a replaced authorization', () => {
    const state = authorizedState();
    applyCapture(
      state,
      { id: 'C1', status: 'COMPLETED', amount: usd('10.00') },
      { amount: usd('10.00'), finalCapture: false },
    );
    const voidAfterCapture = applyEvent(
      state,
      { id: 'WH-4', eventType: 'authorization.voided', authorizationId: 'A1' },
      'now',
    );
    expect(voidAfterCapture.applied).toBe(false);
    expect(
      applyEvent(state, { id: 'WH-4', eventType: 'authorization.voided', authorizationId: 'A1' }, 'now').note,
    ).toBe('duplicate delivery');

    applyReauthorization(state, { id: 'A2', status: 'CREATED', amount: usd('90.00') }, 'timer', 'now');
    const stale = applyEvent(
      state,
      { id: 'WH-5', eventType: 'authorization.voided', authorizationId: 'A1' },
      'now',
    );
    expect(stale).toMatchObject({ applied: false });
    expect(stale.note).toMatch(/no longer current/);
    expect(state).toMatchObject({
      status: 'PARTIALLY_CAPTURED',
      currentAuthorizationId: 'A2',
      remainingAmount: '90.00',
    });
  });

  it('applies a VOIDED for the current authorization before any capture', () => {
    const state = authorizedState();
    const voided = applyEvent(
      state,
      { id: 'WH-6', eventType: 'authorization.voided', authorizationId: 'A1' },
      'now',
    );
    expect(voided.applied).toBe(true);
    expect(state).toMatchObject({ status: 'VOIDED', remainingAmount: '0.00' });
  });
});

describe('amounts in another currency than the lifecycle', () => {
  it('are recorded with a note and never booked: a JPY 50 capture or refund event on a USD lifecycle', () => {
    const state = authorizedState('100.00');
    const capture = applyEvent(
      state,
      captureCompletedEvent('50', { amount: { currency_code: 'JPY', value: '50' } }),
      't3',
    );
    expect(capture).toMatchObject({
      applied: false,
      note: "amount in JPY, not the lifecycle's USD: not booked",
    });
    expect(state).toMatchObject({ status: 'AUTHORIZED', capturedAmount: '0.00', remainingAmount: '100.00' });
    expect(state.captures).toEqual([]);

    applyEvent(state, captureCompletedEvent('40.00', { id: 'WH-2' }), 't4');
    const refund = applyEvent(
      state,
      {
        id: 'WH-3',
        eventType: 'capture.refunded',
        captureId: 'C1',
        refundId: 'R1',
        status: 'COMPLETED',
        amount: { currency_code: 'JPY', value: '40' },
      },
      't5',
    );
    expect(refund.applied).toBe(false);
    expect(state.refunds).toBeUndefined();
    expect(state.captures[0]).toMatchObject({ status: 'COMPLETED', amount: usd('40.00') });
  });

  it('in a provider answer are refused, naming both currencies', () => {
    const state = authorizedState('100.00');
    const answer = { id: 'C1', status: 'COMPLETED' as const, amount: { currency_code: 'JPY', value: '50' } };
    expect(() => inLifecycleCurrency(state, answer, 'capture')).toThrow(
      "the provider answered capture C1 in JPY, not the lifecycle's USD: not booked",
    );
    const inUsd = { ...answer, amount: usd('50.00') };
    expect(inLifecycleCurrency(state, inUsd, 'capture')).toBe(inUsd);
  });
});

describe('a lifecycle started on a partly captured authorization', () => {
  it('starts with what its provider says was captured, and captures only the rest', () => {
    const state = initialState(
      'authorization-A1',
      { id: 'A1', status: 'PARTIALLY_CAPTURED', amount: usd('100.00'), captured_amount: usd('30') },
      { expiryPolicy: 'void', maxCaptures: 100, provider: 'paypal', keyRetentionMs: DAY_MS },
      {
        createTime: '2026-11-25T10:00:00Z',
        reauthorizeAt: 't1',
        expiryPolicyAt: 't2',
        reasons: { expiryPolicy: 'r2' },
        readAt: '2026-11-25T12:00:00Z',
      },
    );
    expect(state).toMatchObject({
      status: 'PARTIALLY_CAPTURED',
      capturedAmount: '30.00',
      remainingAmount: '70.00',
    });
    // Read from the provider at start: a capture of the ledger, not one of the lifecycle's own.
    expect(state.ledger.movements).toEqual([
      { kind: 'hold', reference: 'A1', minorUnits: '10000', source: 'read', at: '2026-11-25T12:00:00Z' },
      {
        kind: 'capture',
        reference: 'A1/captured-before-start',
        of: 'A1',
        minorUnits: '3000',
        source: 'read',
        at: '2026-11-25T12:00:00Z',
      },
    ]);
    expect(state.captures).toEqual([]);
    // The webhook of the capture made before the start arrives late: it is counted already.
    const late = applyEvent(
      state,
      captureCompletedEvent('30.00', { id: 'WH-0', captureId: 'C0', createTime: '2026-11-25T11:00:00Z' }),
      't3',
    );
    expect(late).toMatchObject({
      applied: false,
      note: 'capture made before the lifecycle started: counted in what was captured then',
    });
    expect(state).toMatchObject({ capturedAmount: '30.00', remainingAmount: '70.00' });
    expect(captureAmount(state, {})).toBe('70.00');
    applyCapture(
      state,
      { id: 'C2', status: 'COMPLETED', amount: usd('70.00') },
      {
        amount: usd('70.00'),
        finalCapture: true,
      },
    );
    expect(state).toMatchObject({ status: 'CAPTURED', capturedAmount: '100.00', remainingAmount: '0.00' });
  });

  it('is refused when its provider does not say how much was captured, or says nonsense', () => {
    const partly = { id: 'A1', status: 'PARTIALLY_CAPTURED' as const, amount: usd('100.00') };
    expect(() => assertCapturedKnown(partly)).toThrow(
      'authorization A1 is PARTIALLY_CAPTURED and its provider does not say how much was captured',
    );
    expect(() =>
      assertCapturedKnown({ ...partly, captured_amount: { currency_code: 'JPY', value: '30' } }),
    ).toThrow('which the lifecycle cannot take as part of it');
    expect(() => assertCapturedKnown({ ...partly, captured_amount: usd('100.01') })).toThrow(/cannot take/);
    expect(() => assertCapturedKnown({ ...partly, captured_amount: usd('30.00') })).not.toThrow();
    expect(() => assertCapturedKnown({ ...partly, status: 'CREATED' })).not.toThrow();
  });
});
