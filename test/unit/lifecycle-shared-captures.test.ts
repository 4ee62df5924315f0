import type { LifecycleState, PaymentEvent } from '../../src/workflows/lifecycle/definitions';
import {
  applyEvent,
  applyReauthorization,
  bookCapture,
  bookRefund,
  initialState,
  voidTarget,
} from '../../src/workflows/lifecycle/state';
import { applyRefund } from '../../src/workflows/lifecycle/bookings';
import { ownCapture, providerCaptureId } from '../../src/workflows/lifecycle/shared-charge';
import { beginAttempt } from '../../src/workflows/lifecycle/keyed-requests';
import { refundAmount } from '../../src/workflows/lifecycle/validation';
import { authorizedState, usd } from '../fixtures/lifecycle-state';

const DAY_MS = 24 * 60 * 60 * 1000;

// A Stripe lifecycle whose intent uses multicapture: every capture lands in the intent's one charge, so the
// lifecycle gives each an id of its own; refunds go to the charge. Pure: no Temporal server.

function multicaptureState(): LifecycleState {
  return initialState(
    'authorization-pi_1',
    { id: 'pi_1', status: 'CREATED', amount: usd('100.00') },
    {
      expiryPolicy: 'void',
      maxCaptures: 50,
      provider: 'stripe',
      reauthorization: 'new-authorization',
      sharedCaptureIds: true,
      keyRetentionMs: DAY_MS,
    },
    { createTime: 't0', reauthorizeAt: 't1', expiryPolicyAt: 't2', reasons: { expiryPolicy: 'r2' } },
  );
}

let captureKeys = 0;

/** Books Stripe's answer to the lifecycle's own capture of `value`, under a key of its own, as its command does. */
function captured(state: LifecycleState, value: string): string {
  const answer = { id: 'ch_1', status: 'COMPLETED' as const, amount: usd(value), final_capture: false };
  const sent = {
    authorizationId: state.currentAuthorizationId,
    amount: usd(value),
    finalCapture: false,
    idempotencyKey: `capture-${++captureKeys}`,
  };
  return bookCapture(state, sent, answer).id;
}

/** Applies, as received now, a provider event of the intent's charge `ch_1`. */
function chargeEvent(state: LifecycleState, fields: Partial<PaymentEvent> & Pick<PaymentEvent, 'eventType'>) {
  return applyEvent(state, { id: `evt_${Math.random()}`, captureId: 'ch_1', ...fields }, 'now');
}

describe('captures that share a charge', () => {
  it('get ids of their own and are counted apart; refunds of each go to the charge', () => {
    const state = multicaptureState();
    expect([captured(state, '20.00'), captured(state, '30.00')]).toEqual(['ch_1-1', 'ch_1-2']);
    expect(state).toMatchObject({
      status: 'PARTIALLY_CAPTURED',
      capturedAmount: '50.00',
      remainingAmount: '50.00',
    });
    expect(providerCaptureId(state, 'ch_1-2')).toBe('ch_1');
  });

  it("record the charge's capture event without applying it in a run recorded before charge totals were learned", () => {
    const state = multicaptureState();
    captured(state, '20.00');
    const recorded = chargeEvent(state, {
      eventType: 'capture.completed',
      authorizationId: 'pi_1',
      amount: usd('20.00'),
    });
    expect(recorded.applied).toBe(false);
    expect(state.capturedAmount).toBe('20.00');
    expect(state.captures).toHaveLength(1);
  });

  it('apply a refund event to the capture its refund was sent for, or to the charge’s only capture', () => {
    const state = multicaptureState();
    captured(state, '20.00');
    const only = chargeEvent(state, {
      eventType: 'capture.refunded',
      refundId: 're_1',
      amount: usd('5.00'),
    });
    expect(only.applied).toBe(true);
    expect(state.refunds).toMatchObject([{ id: 're_1', captureId: 'ch_1-1' }]);

    captured(state, '30.00');
    applyRefund(state, {
      id: 're_2',
      captureId: 'ch_1-2',
      kind: 'refund',
      status: 'PENDING',
      amount: usd('10.00'),
    });
    chargeEvent(state, {
      eventType: 'capture.refunded',
      refundId: 're_2',
      status: 'COMPLETED',
      amount: usd('10.00'),
    });
    expect(state.refunds?.find((refund) => refund.id === 're_2')).toMatchObject({
      captureId: 'ch_1-2',
      status: 'COMPLETED',
    });
    // A dispute of the charge names no capture of the two: recorded, not applied.
    const dispute = chargeEvent(state, {
      eventType: 'capture.reversed',
      refundId: 'dp_1',
      amount: usd('50.00'),
    });
    expect(dispute.applied).toBe(false);
  });

  it('apply a dispute of the charge’s only capture at once, as the lifecycle does (refunds wait only for captures not held)', () => {
    const state = multicaptureState();
    captured(state, '100.00');
    const dispute = chargeEvent(state, {
      eventType: 'capture.reversed',
      refundId: 'dp_1',
      amount: usd('100.00'),
    });
    expect(dispute.applied).toBe(true);
    expect(state.refundsAwaitingCapture ?? []).toEqual([]);
    expect(state.refunds).toMatchObject([{ id: 'dp_1', captureId: 'ch_1-1', kind: 'reversal' }]);
  });
});

describe("a shared charge's total", () => {
  /** Stripe's charge.captured: the charge's amount_captured, all its captures together. */
  const chargeCaptured = (state: LifecycleState, total: string) =>
    chargeEvent(state, {
      eventType: 'capture.completed',
      authorizationId: 'pi_1',
      amount: usd(total),
    });
  /** Stripe's payment_intent.succeeded: the intent captured `total` in all and takes no more captures. */
  const intentSucceeded = (state: LifecycleState, total: string) =>
    chargeEvent(state, {
      eventType: 'authorization.captured',
      authorizationId: 'pi_1',
      capturedTotal: usd(total),
    });

  it('books a capture the lifecycle did not make (the dashboard’s) as a learned capture', () => {
    const state = multicaptureState();
    expect(chargeCaptured(state, '100.00').applied).toBe(true);
    expect(state).toMatchObject({ status: 'CAPTURED', capturedAmount: '100.00', remainingAmount: '0.00' });
    expect(state.captures).toMatchObject([{ id: 'ch_1-1', amount: usd('100.00') }]);
    expect(state.captures[0]?.idempotencyKey).toBeUndefined();
    expect(providerCaptureId(state, 'ch_1-1')).toBe('ch_1');
    expect(intentSucceeded(state, '100.00').applied).toBe(false);
    expect(state.capturedAmount).toBe('100.00');
  });

  it('ends a partial dashboard capture made final when the intent succeeds', () => {
    const state = multicaptureState();
    chargeCaptured(state, '30.00');
    expect(state).toMatchObject({ status: 'PARTIALLY_CAPTURED', remainingAmount: '70.00' });
    expect(intentSucceeded(state, '30.00').applied).toBe(true);
    expect(state).toMatchObject({ status: 'CAPTURED', capturedAmount: '30.00', remainingAmount: '0.00' });
  });

  it('counts the lifecycle’s own capture once, whichever comes first: its answer or its event', () => {
    const answerFirst = multicaptureState();
    captured(answerFirst, '20.00');
    expect(chargeCaptured(answerFirst, '20.00').applied).toBe(false);
    expect(answerFirst.capturedAmount).toBe('20.00');

    const eventFirst = multicaptureState();
    chargeCaptured(eventFirst, '20.00');
    expect(captured(eventFirst, '20.00')).toBe('ch_1-1');
    expect(eventFirst).toMatchObject({ capturedAmount: '20.00', remainingAmount: '80.00' });
    expect(eventFirst.captures).toHaveLength(1);
    // The learnt capture became the lifecycle's own, under its key: no later answer takes it back.
    expect(eventFirst.captures[0]?.idempotencyKey).toBeDefined();
  });

  it('takes the own capture out of a learned one that also holds the dashboard’s', () => {
    const state = multicaptureState();
    // The dashboard captured 30.00 and the lifecycle 30.00; the later total came first.
    chargeCaptured(state, '60.00');
    chargeCaptured(state, '30.00');
    // The learned ch_1-1 is taken back whole (declined in the ledger); what of it the answer does not explain
    // is learned again as ch_1-2. An id the ledger booked is never given again.
    expect(captured(state, '30.00')).toBe('ch_1-3');
    expect(state).toMatchObject({ capturedAmount: '60.00', remainingAmount: '40.00' });
    expect(state.captures.map((capture) => [capture.id, capture.amount.value])).toEqual([
      ['ch_1-2', '30.00'],
      ['ch_1-3', '30.00'],
    ]);
    expect(state.ledger.movements.filter((movement) => movement.kind === 'capture-declined')).toMatchObject([
      { reference: 'ch_1-1', minorUnits: '6000' },
    ]);
    // Learned captures the answer takes whole are gone.
    chargeCaptured(state, '65.00');
    chargeCaptured(state, '70.00');
    expect(captured(state, '10.00')).toBe('ch_1-6');
    expect(state.captures.map((capture) => [capture.id, capture.amount.value])).toEqual([
      ['ch_1-2', '30.00'],
      ['ch_1-3', '30.00'],
      ['ch_1-6', '10.00'],
    ]);
    expect(state).toMatchObject({ capturedAmount: '70.00', remainingAmount: '30.00' });
  });

  it('applies a dashboard refund that came before the capture it refunds', () => {
    const state = multicaptureState();
    const refund = chargeEvent(state, {
      eventType: 'capture.refunded',
      refundId: 're_1',
      amount: usd('30.00'),
    });
    expect(refund.applied).toBe(false);
    chargeCaptured(state, '30.00');
    expect(state).toMatchObject({ capturedAmount: '30.00', refundedAmount: '30.00' });
    expect(state.refundsAwaitingCapture).toBeUndefined();
  });
});

describe('a refund or dispute of a charge with several captures', () => {
  it('falls on its captures oldest first; a later event of it updates the same portions', () => {
    const state = multicaptureState();
    captured(state, '30.00');
    captured(state, '40.00');
    const refund = { eventType: 'capture.refunded' as const, refundId: 're_1', amount: usd('50.00') };
    expect(chargeEvent(state, { ...refund, status: 'PENDING' }).applied).toBe(true);
    expect(chargeEvent(state, { ...refund, status: 'COMPLETED' }).applied).toBe(true);
    expect(state.refunds).toMatchObject([
      { id: 're_1/ch_1-1', captureId: 'ch_1-1', amount: usd('30.00'), status: 'COMPLETED' },
      { id: 're_1/ch_1-2', captureId: 'ch_1-2', amount: usd('20.00'), status: 'COMPLETED' },
    ]);
    expect(state).toMatchObject({ refundedAmount: '50.00', capturedAmount: '70.00' });
    const dispute = chargeEvent(state, {
      eventType: 'capture.reversed',
      refundId: 'du_1',
      amount: usd('20.00'),
    });
    expect(dispute.applied).toBe(true);
    expect(state).toMatchObject({ refundedAmount: '70.00' });
  });

  it('books the lifecycle’s own refund once when its event comes before the answer', () => {
    const state = multicaptureState();
    captured(state, '20.00');
    const own = captured(state, '30.00');
    const attempt = {
      operation: 'refund' as const,
      idempotencyKey: 'k-refund',
      request: {},
      captureId: own,
      sentAt: '2026-01-01T00:00:00.000Z',
      sent: { captureId: 'ch_1', amount: usd('30.00'), idempotencyKey: `ch_1/refund/k-refund` },
    };
    beginAttempt(state, attempt);
    const event = chargeEvent(state, {
      eventType: 'capture.refunded',
      refundId: 're_1',
      status: 'COMPLETED',
      amount: usd('30.00'),
    });
    expect(event.applied).toBe(true);
    bookRefund(state, attempt, { id: 're_1', status: 'COMPLETED', amount: usd('30.00') });
    expect(state).toMatchObject({ refundedAmount: '30.00', capturedAmount: '50.00' });
    expect(state.captures.map((capture) => [capture.id, capture.status])).toEqual([
      ['ch_1-1', 'COMPLETED'],
      ['ch_1-2', 'REFUNDED'],
    ]);
    expect(state.ledger.movements.filter((movement) => movement.kind === 'refund')).toEqual([
      expect.objectContaining({ reference: 're_1', of: 'ch_1-2', source: 'event' }),
    ]);
  });

  it('waits for a capture still to be learnt when the captures held cannot take it all', () => {
    const state = multicaptureState();
    captured(state, '30.00');
    captured(state, '40.00');
    const refund = { eventType: 'capture.refunded' as const, refundId: 're_1', amount: usd('90.00') };
    expect(chargeEvent(state, refund).applied).toBe(false);
    chargeEvent(state, {
      eventType: 'capture.completed',
      authorizationId: 'pi_1',
      amount: usd('100.00'),
    });
    expect(state).toMatchObject({ capturedAmount: '100.00', refundedAmount: '90.00' });
    expect(state.refundsAwaitingCapture).toBeUndefined();
  });
});

describe('a dispute of a shared charge larger than the one capture the lifecycle knows of it', () => {
  it('waits for the capture still to be learnt, then falls on both (Stripe model seed 20261204)', () => {
    const state = multicaptureState();
    captured(state, '20.00');
    // A dashboard capture of 30.00 into the charge, its event dropped; the payer's bank disputes all 50.00.
    const dispute = { eventType: 'capture.reversed' as const, refundId: 'du_1', amount: usd('50.00') };
    expect(chargeEvent(state, dispute).applied).toBe(false);
    expect(state.ledger.discrepancies).toEqual([]);
    chargeEvent(state, { eventType: 'capture.completed', authorizationId: 'pi_1', amount: usd('50.00') });
    expect(state).toMatchObject({ capturedAmount: '50.00', refundedAmount: '50.00' });
    expect(state.captures.map((capture) => capture.status)).toEqual(['REVERSED', 'REVERSED']);
    expect(state.ledger.discrepancies).toEqual([]);
  });
});

describe('a refund of a shared charge that its captures cannot take yet', () => {
  it('is applied once a refund of theirs comes back and makes room for it', () => {
    const state = multicaptureState();
    captured(state, '30.00');
    captured(state, '70.00');
    const refund = { eventType: 'capture.refunded' as const, status: 'COMPLETED' as const };
    chargeEvent(state, { ...refund, refundId: 're_1', amount: usd('100.00') });
    expect(state).toMatchObject({ status: 'REFUNDED', refundedAmount: '100.00' });
    // re_1 fails at Stripe, which then refunds re_2 from the dashboard; re_2's event comes first.
    expect(chargeEvent(state, { ...refund, refundId: 're_2', amount: usd('20.00') }).applied).toBe(false);
    const failed = {
      ...refund,
      refundId: 're_1',
      status: 'FAILED' as const,
      movement: 'refund-returned' as const,
    };
    expect(chargeEvent(state, { ...failed, amount: usd('100.00') }).applied).toBe(true);
    expect(state).toMatchObject({ status: 'PARTIALLY_REFUNDED', refundedAmount: '20.00' });
    expect(state.refundsAwaitingCapture).toBeUndefined();
  });
});

describe('a refund of a capture whose shared charge is disputed', () => {
  // Stripe refuses a refund of a charge whose dispute is open or lost (`charge_disputed`), whichever of the
  // charge's captures the refund is meant for: the lifecycle refuses it before any call.
  const dispute = { eventType: 'capture.reversed' as const, refundId: 'du_1' };
  const refusal = /capture ch_1-2 shares charge ch_1, whose dispute du_1 withdrew funds/;

  it('is refused while the dispute holds funds of another capture of the charge, and allowed once they are reinstated', () => {
    const state = multicaptureState();
    captured(state, '30.00');
    captured(state, '40.00');
    expect(chargeEvent(state, { ...dispute, amount: usd('20.00') }).applied).toBe(true);
    expect(state.captures.map((capture) => capture.status)).toEqual(['REVERSED', 'COMPLETED']);
    expect(() => refundAmount(state, { captureId: 'ch_1-2' })).toThrow(refusal);
    const won = {
      ...dispute,
      amount: usd('20.00'),
      status: 'CANCELLED',
      movement: 'dispute-reinstated' as const,
    };
    expect(chargeEvent(state, won).applied).toBe(true);
    expect(refundAmount(state, { captureId: 'ch_1-2' })).toBe('40.00');
  });

  it('is refused while the dispute waits for a capture still to be learnt', () => {
    const state = multicaptureState();
    captured(state, '30.00');
    captured(state, '40.00');
    expect(chargeEvent(state, { ...dispute, amount: usd('100.00') }).applied).toBe(false);
    expect(state.captures.map((capture) => capture.status)).toEqual(['COMPLETED', 'COMPLETED']);
    expect(() => refundAmount(state, { captureId: 'ch_1-2' })).toThrow(refusal);
  });

  it('is allowed while the charge has only an inquiry', () => {
    const state = multicaptureState();
    captured(state, '30.00');
    captured(state, '40.00');
    const inquiry = { ...dispute, amount: usd('100.00'), movement: 'dispute-inquiry' as const };
    chargeEvent(state, inquiry);
    expect(refundAmount(state, { captureId: 'ch_1-2' })).toBe('40.00');
  });
});

describe('a shared charge captured before the start', () => {
  function adoptedState(): LifecycleState {
    const state = initialState(
      'authorization-pi_1',
      {
        id: 'pi_1',
        status: 'PARTIALLY_CAPTURED',
        amount: usd('100.00'),
        captured_amount: usd('30.00'),
      },
      {
        expiryPolicy: 'void',
        maxCaptures: 50,
        provider: 'stripe',
        keyRetentionMs: DAY_MS,
        sharedCaptureIds: true,
        sharedChargeId: 'ch_1',
      },
      {
        createTime: 't0',
        reauthorizeAt: 't1',
        expiryPolicyAt: 't2',
        reasons: { expiryPolicy: 'r2' },
        readAt: '2026-11-25T12:00:00Z',
      },
    );
    return state;
  }

  it('holds what was captured then as one of its captures', () => {
    const state = adoptedState();
    expect(state).not.toHaveProperty('capturedAtStart');
    expect(state).toMatchObject({
      status: 'PARTIALLY_CAPTURED',
      capturedAmount: '30.00',
      remainingAmount: '70.00',
    });
    expect(state.captures).toMatchObject([{ id: 'ch_1-1', amount: usd('30.00') }]);
    expect(providerCaptureId(state, 'ch_1-1')).toBe('ch_1');
  });

  it('reads PARTIALLY_REFUNDED when only the lifecycle’s own capture is refunded', () => {
    const state = adoptedState();
    const own = captured(state, '70.00');
    expect(own).toBe('ch_1-2');
    applyRefund(state, {
      id: 're_1',
      captureId: own,
      kind: 'refund',
      status: 'COMPLETED',
      amount: usd('70.00'),
    });
    expect(state).toMatchObject({
      status: 'PARTIALLY_REFUNDED',
      capturedAmount: '100.00',
      refundedAmount: '70.00',
    });
    // The charge's total counts both: nothing to learn.
    const total = chargeEvent(state, {
      eventType: 'capture.completed',
      authorizationId: 'pi_1',
      amount: usd('100.00'),
    });
    expect(total.applied).toBe(false);
    expect(state.capturedAmount).toBe('100.00');
  });
});

describe('a PayPal lifecycle beside it', () => {
  it('keeps the capture ids the provider answers, and voids the original authorization', () => {
    const state = authorizedState();
    expect(ownCapture(state, { id: 'CAP-1' }).id).toBe('CAP-1');
    expect(state.provider).toBe('paypal');
    state.currentAuthorizationId = 'A2';
    expect(voidTarget(state)).toBe('A1');
  });

  it('keeps its expiry policy through a reauthorization, where a new Stripe hold moves it', () => {
    const paypal = authorizedState();
    const renewal = {
      id: 'X2',
      status: 'CREATED' as const,
      amount: usd('100.00'),
      expiration_time: '2026-06-08T12:00:00.000Z',
    };
    applyReauthorization(paypal, renewal, 'timer', 'now');
    expect(paypal.expiryPolicyAt).toBe('t2');
    const stripe = multicaptureState();
    applyReauthorization(stripe, { ...renewal, id: 'pi_2' }, 'timer', 'now');
    expect(stripe.expiryPolicyAt).toBe('2026-06-08T11:00:00.000Z');
  });

  it('where a Stripe lifecycle voids the intent that holds the money now, after a reauthorization', () => {
    const state = multicaptureState();
    state.currentAuthorizationId = 'pi_2';
    expect(voidTarget(state)).toBe('pi_2');
  });
});
