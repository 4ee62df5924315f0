import { ApplicationFailure } from '@temporalio/common';
import { LifecycleFailure } from '../../src/workflows/lifecycle/definitions';
import { applyEvent, markEnded } from '../../src/workflows/lifecycle/state';
import { applyCapture, applyRefund } from '../../src/workflows/lifecycle/bookings';
import {
  assertDurationsWithinBounds,
  assertOpen,
  completeAmount,
  reauthorizeAmount,
} from '../../src/workflows/lifecycle/validation';
import {
  authorizedState,
  captureCompletedEvent,
  capturedState,
  refundOf,
  usd,
} from '../fixtures/lifecycle-state';

import {
  beginAttempt,
  capturePlan,
  endAttempt,
  refundPlan,
  requestFingerprint,
} from '../../src/workflows/lifecycle/keyed-requests';
import type {
  CaptureInput,
  LifecycleState,
  PendingAttempt,
  RefundInput,
} from '../../src/workflows/lifecycle/definitions';

/** What the capture plan sends for a request (under key `k0` unless it names one), as its command computes it. */
function capturePlanOf(state: LifecycleState, request: CaptureInput) {
  const keyed = { idempotencyKey: 'k0', ...request };
  const { sent } = capturePlan(state, keyed, requestFingerprint(keyed, state.currency));
  return { amount: sent.amount.value, finalCapture: sent.finalCapture, idempotencyKey: sent.idempotencyKey };
}

/** What the refund plan sends for a request (under key `k0` unless it names one). */
function refundPlanOf(state: LifecycleState, request: RefundInput) {
  const keyed = { idempotencyKey: 'k0', ...request };
  const { sent } = refundPlan(state, keyed, requestFingerprint(keyed, state.currency));
  return { amount: sent.amount.value, idempotencyKey: sent.idempotencyKey };
}

/** The keyed attempt `request` recorded before its provider call, sent under `sentUnder`. */
function attemptOf(
  operation: PendingAttempt['operation'],
  request: CaptureInput | RefundInput,
  fields: { sentUnder: string; amount: string; finalCapture?: boolean; captureId?: string },
): PendingAttempt {
  const keyed = {
    idempotencyKey: request.idempotencyKey as string,
    request: requestFingerprint(request, 'USD'),
    sentAt: '2026-01-01T00:00:00.000Z',
  };
  const sent = { amount: usd(fields.amount), idempotencyKey: fields.sentUnder };
  if (operation === 'capture') {
    return {
      ...keyed,
      operation,
      sent: { ...sent, authorizationId: 'A1', finalCapture: fields.finalCapture ?? false },
    };
  }
  const captureId = fields.captureId as string;
  return { ...keyed, operation, captureId, sent: { ...sent, captureId } };
}

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
    expect(capturePlanOf(state, {})).toMatchObject({ amount: '100.00' });
    expect(capturePlanOf(state, { amount: '5' })).toMatchObject({ amount: '5.00' });
    expect(capturePlanOf(authorizedState('1000', { currency: 'JPY' }), { amount: '999' })).toMatchObject({
      amount: '999',
    });
  });

  it('refuses an amount that is not positive in the currency, and more than remains', () => {
    const state = capturedState('100.00', { C1: '60.00' });
    expect(refusal(() => capturePlanOf(state, { amount: '0.00' }))).toEqual({
      type: LifecycleFailure.invalidRequest,
      message: 'amount: "0.00" is not a positive amount in USD, which has 2 decimals',
    });
    expect(refusal(() => capturePlanOf(state, { amount: '1.001' })).type).toBe(
      LifecycleFailure.invalidRequest,
    );
    expect(refusal(() => capturePlanOf(state, { amount: '40.01' }))).toEqual({
      type: LifecycleFailure.stateForbids,
      message: 'amount: 40.01 USD is more than the 40.00 that remains',
    });
  });

  it("refuses a capture past the provider's bound, naming it", () => {
    const state = authorizedState('100.00', { maxCaptures: 2 });
    for (const id of ['C1', 'C2']) {
      applyCapture(
        state,
        { id, status: 'COMPLETED', amount: usd('10.00') },
        { amount: usd('10.00'), finalCapture: false },
      );
    }
    expect(refusal(() => capturePlanOf(state, { amount: '10.00' }))).toEqual({
      type: LifecycleFailure.stateForbids,
      message: 'cannot capture: authorization A1 has 2 captures, the most its provider takes (maxCaptures 2)',
    });
  });

  it('refuses a capture when nothing remains, or the lifecycle ended', () => {
    expect(refusal(() => capturePlanOf(capturedState('100.00', { C1: '100.00' }), {})).message).toBe(
      'cannot capture: the lifecycle is CAPTURED',
    );
    const state = authorizedState();
    state.remainingAmount = '0.00';
    expect(refusal(() => capturePlanOf(state, {}))).toEqual({
      type: LifecycleFailure.stateForbids,
      message: 'cannot capture: nothing remains to capture',
    });
  });

  it('never lets a new key claim a capture learnt only from a webhook (a lost answer, the dashboard)', () => {
    const state = authorizedState('100.00');
    applyEvent(state, captureCompletedEvent('100.00', { finalCapture: true }), 't3');
    expect(state.status).toBe('CAPTURED');
    expect(() => capturePlanOf(state, { amount: '100', idempotencyKey: 'k1' })).toThrow(/cannot capture/);
    expect(() => capturePlanOf(state, { idempotencyKey: 'k1' })).toThrow(/cannot capture/);
    expect(() => capturePlanOf(state, { amount: '10.00', idempotencyKey: 'k1' })).toThrow(/cannot capture/);
  });

  it('lets the retry of the attempt whose answer was lost claim its capture, under the same provider request id', () => {
    const state = authorizedState('100.00');
    const request = { amount: '100', idempotencyKey: 'k1' };
    beginAttempt(
      state,
      attemptOf('capture', request, { sentUnder: 'A1-k1', amount: '100.00', finalCapture: true }),
    );
    applyEvent(state, captureCompletedEvent('100.00', { finalCapture: true }), 't3');
    expect(capturePlanOf(state, { amount: '100.00', idempotencyKey: 'k1' })).toEqual({
      amount: '100.00',
      finalCapture: true,
      idempotencyKey: 'A1-k1',
    });
    // Another key, or the same key with another request, is held to what remains.
    expect(() => capturePlanOf(state, { amount: '100.00', idempotencyKey: 'k2' })).toThrow(/cannot capture/);
    expect(() => capturePlanOf(state, { idempotencyKey: 'k1' })).toThrow(/cannot capture/);
    expect(() => capturePlanOf(state, { amount: '100.00' })).toThrow(/cannot capture/);
  });

  it('resends a pending attempt not yet reported while it fits what remains, and forgets it once answered', () => {
    const state = capturedState('100.00', { C1: '50.00' });
    const request = { idempotencyKey: 'k1' };
    const attempt = attemptOf('capture', request, { sentUnder: 'A1-k1', amount: '30.00' });
    beginAttempt(state, attempt);
    expect(capturePlanOf(state, request)).toMatchObject({ amount: '30.00', idempotencyKey: 'A1-k1' });
    applyCapture(
      state,
      { id: 'C2', status: 'COMPLETED', amount: usd('50.00') },
      {
        amount: usd('50.00'),
        finalCapture: false,
      },
    );
    expect(refusal(() => capturePlanOf(state, request)).message).toBe(
      'cannot capture: the lifecycle is CAPTURED',
    );
    endAttempt(state, attempt);
    expect(state.pendingAttempts).toEqual([]);
  });

  it('does not plan again a capture a request already claimed', () => {
    const state = authorizedState('100.00');
    beginAttempt(
      state,
      attemptOf('capture', { idempotencyKey: 'k1' }, { sentUnder: 'A1-k1', amount: '100.00' }),
    );
    applyCapture(
      state,
      { id: 'C1', status: 'COMPLETED', amount: usd('100.00') },
      { amount: usd('100.00'), finalCapture: true, idempotencyKey: 'A1-k0' },
    );
    expect(() => capturePlanOf(state, { idempotencyKey: 'k1' })).toThrow(/cannot capture/);
  });
});

describe('a capture in a lifecycle started with overcapture', () => {
  /** 30.00 of a 100.00 PayPal authorization captured; captures may total 115 % of it. */
  function overcapturing(): LifecycleState {
    const state = capturedState('100.00', { C1: '30.00' });
    return { ...state, overcapture: true, overCapturePercent: 15 };
  }

  it("takes what remains and the provider's allowance, as the last capture", () => {
    expect(capturePlanOf(overcapturing(), { amount: '85.00' })).toMatchObject({
      amount: '85.00',
      finalCapture: true,
    });
    expect(capturePlanOf(overcapturing(), { amount: '70.00' })).toMatchObject({ finalCapture: true });
    expect(capturePlanOf(overcapturing(), { amount: '69.99' })).toMatchObject({ finalCapture: false });
  });

  it('refuses more, and a capture beyond what remains that is not the last', () => {
    expect(refusal(() => capturePlanOf(overcapturing(), { amount: '85.01' }))).toEqual({
      type: LifecycleFailure.stateForbids,
      message:
        'amount: 85.01 USD is more than the 70.00 that remains and the 15.00 its provider lets a capture exceed the hold by',
    });
    expect(refusal(() => capturePlanOf(overcapturing(), { amount: '71.00', finalCapture: false }))).toEqual({
      type: LifecycleFailure.invalidRequest,
      message:
        'finalCapture: a capture beyond the 70.00 that remains is the last; leave finalCapture out or set it true',
    });
  });

  it("is PayPal's 15 % of the hold at most 75.00 USD more, and Stripe's maximum for the hold", () => {
    const large = { ...capturedState('1000.00', {}), overcapture: true as const, overCapturePercent: 15 };
    const capped = { ...large, overCaptureAtMost: '75.00' };
    expect(capturePlanOf(large, { amount: '1150.00' })).toMatchObject({ amount: '1150.00' });
    expect(refusal(() => capturePlanOf(capped, { amount: '1075.01' })).message).toBe(
      'amount: 1075.01 USD is more than the 1000.00 that remains and the 75.00 its provider lets a capture exceed the hold by',
    );
    const stripe = { ...capturedState('100.00', {}), overcapture: true as const, captureMaximum: '120.00' };
    expect(capturePlanOf(stripe, { amount: '120.00' })).toMatchObject({
      amount: '120.00',
      finalCapture: true,
    });
    expect(refusal(() => capturePlanOf(stripe, { amount: '120.01' })).message).toBe(
      'amount: 120.01 USD is more than the 100.00 that remains and the 20.00 its provider lets a capture exceed the hold by',
    );
  });

  it('is capped at what remains where the start did not allow it, whatever the provider grants', () => {
    const state = { ...capturedState('100.00', { C1: '30.00' }), overCapturePercent: 15 };
    expect(refusal(() => capturePlanOf(state, { amount: '70.01' })).message).toBe(
      'amount: 70.01 USD is more than the 70.00 that remains',
    );
  });
});

describe('completing an order', () => {
  it('releases what remains once something was captured', () => {
    expect(completeAmount(capturedState('100.00', { C1: '30.00' }))).toBe('70.00');
  });

  it('is refused while nothing was captured, while a capture has no answer, on a shared charge, and once ended', () => {
    expect(refusal(() => completeAmount(authorizedState('100.00'))).message).toBe(
      'cannot complete the order: nothing was captured; void the authorization to release the whole hold',
    );
    const unanswered = capturedState('100.00', { C1: '30.00' });
    beginAttempt(
      unanswered,
      attemptOf('capture', { idempotencyKey: 'k9' }, { sentUnder: 'A1/capture/k9', amount: '10.00' }),
    );
    expect(refusal(() => completeAmount(unanswered)).message).toBe(
      'cannot complete the order: the capture under key k9 has no answer yet; retry it first',
    );
    const shared = { ...capturedState('100.00', { C1: '30.00' }), sharedCaptureIds: true as const };
    expect(refusal(() => completeAmount(shared)).message).toMatch(
      /^cannot complete the order: Stripe releases the rest of a partly captured PaymentIntent only with its final capture/,
    );
    const voided = capturedState('100.00', { C1: '30.00' });
    markEnded(voided, 'VOIDED');
    expect(refusal(() => completeAmount(voided))).toEqual({
      type: LifecycleFailure.stateForbids,
      message: 'cannot complete the order: the lifecycle is VOIDED',
    });
  });
});

describe('the reauthorization amount', () => {
  it('is what remains without an amount, or the amount with the currency decimals', () => {
    const state = capturedState('100.00', { C1: '30.00' });
    expect(reauthorizeAmount(state, {})).toBe('70.00');
    expect(reauthorizeAmount(state, { amount: '60' })).toBe('60.00');
    expect(reauthorizeAmount(state, { amount: '70' })).toBe('70.00');
  });

  it('refuses more than what remains of the current hold, naming the amount and what remains', () => {
    const state = capturedState('100.00', { C1: '30.00' });
    const refused = refusal(() => reauthorizeAmount(state, { amount: '70.01' }));
    expect(refused.type).toBe(LifecycleFailure.stateForbids);
    expect(refused.message).toBe('amount: 70.01 USD is more than the 70.00 that remains of the current hold');
    const captured = capturedState('100.00', { C1: '100.00' });
    expect(refusal(() => reauthorizeAmount(captured, {})).message).toMatch(
      /cannot reauthorize: (nothing remains held|the lifecycle is CAPTURED)/,
    );
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
    expect(refundPlanOf(state, { captureId: 'C1' })).toMatchObject({ amount: '60.00' });
    applyRefund(state, refundOf('C1', 'R1', '15.00'));
    expect(refundPlanOf(state, { captureId: 'C1' })).toMatchObject({ amount: '45.00' });
    expect(refundPlanOf(state, { captureId: 'C1', amount: '45' })).toMatchObject({ amount: '45.00' });
  });

  it('refuses a capture the lifecycle does not hold, more than is left, and a capture not refundable', () => {
    const state = capturedState('100.00', { C1: '60.00' });
    expect(refusal(() => refundPlanOf(state, { captureId: 'C9' }))).toEqual({
      type: LifecycleFailure.invalidRequest,
      message: 'captureId: C9 is not a capture of authorization A1',
    });
    expect(refusal(() => refundPlanOf(state, { captureId: 'C1', amount: '60.01' }))).toEqual({
      type: LifecycleFailure.stateForbids,
      message: 'amount: 60.01 USD is more than the 60.00 capture C1 has not had refunded',
    });
    applyRefund(state, refundOf('C1', 'R1', '60.00'));
    expect(refusal(() => refundPlanOf(state, { captureId: 'C1' }))).toEqual({
      type: LifecycleFailure.stateForbids,
      message: 'cannot refund: capture C1 is REFUNDED',
    });
  });

  it('is taken after the lifecycle ended', () => {
    const state = capturedState('100.00', { C1: '100.00' });
    expect(state.status).toBe('CAPTURED');
    expect(refundPlanOf(state, { captureId: 'C1', amount: '1.00' })).toMatchObject({ amount: '1.00' });
  });

  it('never lets a new key claim a refund learnt only from a webhook, nor refund a reversed capture', () => {
    const state = capturedState('100.00', { C1: '100.00' });
    applyRefund(state, refundOf('C1', 'R1', '100.00'));
    expect(() => refundPlanOf(state, { captureId: 'C1', amount: '100.00', idempotencyKey: 'k1' })).toThrow(
      /cannot refund/,
    );
    const reversed = capturedState('100.00', { C1: '100.00' });
    applyRefund(reversed, refundOf('C1', 'RV1', '100.00', { kind: 'reversal' }));
    expect(() => refundPlanOf(reversed, { captureId: 'C1', idempotencyKey: 'k1' })).toThrow(/cannot refund/);
  });

  it('lets the retry of the refund whose answer was lost claim it, under the same provider request id', () => {
    const state = capturedState('100.00', { C1: '100.00' });
    const request = { captureId: 'C1', amount: '100.00', idempotencyKey: 'k1' };
    beginAttempt(
      state,
      attemptOf('refund', request, { sentUnder: 'C1-k1', amount: '100.00', captureId: 'C1' }),
    );
    applyRefund(state, refundOf('C1', 'R1', '100.00'));
    expect(refundPlanOf(state, request)).toEqual({ amount: '100.00', idempotencyKey: 'C1-k1' });
    expect(() => refundPlanOf(state, { ...request, idempotencyKey: 'k2' })).toThrow(/cannot refund/);
    const claimed = capturedState('100.00', { C1: '100.00' });
    applyRefund(claimed, refundOf('C1', 'R1', '100.00', { idempotencyKey: 'C1-k0' }));
    expect(() => refundPlanOf(claimed, { captureId: 'C1', idempotencyKey: 'k1' })).toThrow(/cannot refund/);
  });
});
