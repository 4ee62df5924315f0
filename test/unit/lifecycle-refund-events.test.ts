import { parsePaymentEvent } from '../../src/providers/paypal/payment-event';
import { lifecycleDetails } from '../../src/workflows/lifecycle/visibility';
import type { PaymentEvent } from '../../src/workflows/lifecycle/definitions';
import { applyEvent, markEnded } from '../../src/workflows/lifecycle/state';
import { applyRefund } from '../../src/workflows/lifecycle/bookings';
import { authorizedState, captureCompletedEvent, capturedState, usd } from '../fixtures/lifecycle-state';

// Refund and reversal events as PayPal sends them (resource: the refund, `up` link: its capture), parsed and
// applied to the lifecycle's state. Pure: no Temporal server.

/** A delivery body shaped like PayPal's PAYMENT.CAPTURE.REFUNDED / REVERSED samples. */
function refundDelivery(eventType: string, refundId: string, captureId: string, value: string): string {
  return JSON.stringify({
    id: `WH-${refundId}`,
    event_version: '1.0',
    create_time: '2026-05-02T10:00:00Z',
    resource_type: 'refund',
    resource_version: '2.0',
    event_type: eventType,
    summary: `A $ ${value} USD capture payment was refunded`,
    resource: {
      id: refundId,
      amount: usd(value),
      seller_payable_breakdown: { gross_amount: usd(value.replace(/^-/, '')) },
      status: 'COMPLETED',
      create_time: '2026-05-02T09:59:58Z',
      links: [
        { href: `https://api.paypal.com/v2/payments/refunds/${refundId}`, rel: 'self', method: 'GET' },
        { href: `https://api.paypal.com/v2/payments/captures/${captureId}`, rel: 'up', method: 'GET' },
      ],
    },
    links: [],
  });
}

function eventOf(body: string): PaymentEvent {
  const parsed = parsePaymentEvent(body);
  if (!parsed.routable) throw new Error(`unroutable: ${parsed.reason}`);
  return parsed.event;
}

describe('parsing refund and reversal events', () => {
  it('routes PAYMENT.CAPTURE.REFUNDED by the capture its up link names', () => {
    expect(eventOf(refundDelivery('PAYMENT.CAPTURE.REFUNDED', 'R1', 'C1', '10.00'))).toEqual({
      id: 'WH-R1',
      eventType: 'capture.refunded',
      captureId: 'C1',
      refundId: 'R1',
      status: 'COMPLETED',
      movement: 'refund',
      amount: usd('10.00'),
      createTime: '2026-05-02T09:59:58Z',
    });
  });

  it('routes PAYMENT.CAPTURE.REVERSED likewise, reading a negative amount as what was taken back', () => {
    expect(eventOf(refundDelivery('PAYMENT.CAPTURE.REVERSED', 'R2', 'C9', '-25.00'))).toMatchObject({
      eventType: 'capture.reversed',
      captureId: 'C9',
      refundId: 'R2',
      amount: usd('25.00'),
    });
  });
});

describe('applying refund events', () => {
  it('moves the capture and the lifecycle to PARTIALLY_REFUNDED, then REFUNDED', () => {
    const state = capturedState('100.00', { C1: '60.00', C2: '40.00' });
    expect(state.status).toBe('CAPTURED');
    applyEvent(state, eventOf(refundDelivery('PAYMENT.CAPTURE.REFUNDED', 'R1', 'C1', '60.00')), 'now');
    expect(state).toMatchObject({
      status: 'PARTIALLY_REFUNDED',
      refundedAmount: '60.00',
      capturedAmount: '100.00',
    });
    expect(state.captures.map((capture) => capture.status)).toEqual(['REFUNDED', 'COMPLETED']);
    applyEvent(state, eventOf(refundDelivery('PAYMENT.CAPTURE.REFUNDED', 'R2', 'C2', '15.00')), 'now');
    applyEvent(state, eventOf(refundDelivery('PAYMENT.CAPTURE.REFUNDED', 'R3', 'C2', '25.00')), 'now');
    expect(state).toMatchObject({ status: 'REFUNDED', refundedAmount: '100.00' });
    expect(state.captures[1]).toMatchObject({ status: 'REFUNDED', refundedAmount: '40.00' });
    expect(lifecycleDetails(state)).toContain(
      '**REFUNDED**: captured 100.00 of 100.00 USD, 0.00 remaining, 100.00 refunded',
    );
  });

  it('counts a refund once, whether the Update answer or the event came first', () => {
    const state = capturedState('50.00', { C1: '50.00' });
    applyRefund(state, {
      id: 'R1',
      captureId: 'C1',
      kind: 'refund',
      status: 'COMPLETED',
      amount: usd('20.00'),
    });
    const recorded = applyEvent(
      state,
      eventOf(refundDelivery('PAYMENT.CAPTURE.REFUNDED', 'R1', 'C1', '20.00')),
      'now',
    );
    expect(recorded).toMatchObject({ applied: false, note: 'refund R1 is already recorded' });
    expect(state).toMatchObject({ status: 'PARTIALLY_REFUNDED', refundedAmount: '20.00' });
    expect(state.refunds).toHaveLength(1);
  });

  it('marks a reversed capture and the lifecycle REVERSED', () => {
    const state = capturedState('30.00', { C1: '30.00' });
    applyEvent(state, eventOf(refundDelivery('PAYMENT.CAPTURE.REVERSED', 'R5', 'C1', '30.00')), 'now');
    expect(state.status).toBe('REVERSED');
    expect(state.captures[0]).toMatchObject({ status: 'REVERSED', refundedAmount: '30.00' });
  });

  it('records, without applying, a refund of a capture the lifecycle does not hold', () => {
    const state = capturedState('30.00', { C1: '30.00' });
    const recorded = applyEvent(
      state,
      eventOf(refundDelivery('PAYMENT.CAPTURE.REFUNDED', 'R6', 'OTHER', '5.00')),
      'now',
    );
    expect(recorded).toMatchObject({ applied: false, note: expect.stringContaining('does not hold') });
    expect(state.status).toBe('CAPTURED');
  });
});

describe('a refund or reversal delivered before its capture', () => {
  const captureEvent = (captureId: string): PaymentEvent => ({
    id: `WH-${captureId}`,
    eventType: 'capture.completed',
    authorizationId: 'A1',
    captureId,
    amount: usd('30.00'),
  });
  const reversal = eventOf(refundDelivery('PAYMENT.CAPTURE.REVERSED', 'R7', 'C7', '-30.00'));

  it('waits for the capture, then applies: the lifecycle agrees with the provider', () => {
    const state = authorizedState();
    const early = applyEvent(state, reversal, '2026-05-02T10:00:00Z');
    expect(early).toMatchObject({ applied: false, note: expect.stringContaining('waits for capture C7') });
    applyEvent(state, captureEvent('C7'), '2026-05-02T10:00:01Z');
    expect(state).toMatchObject({ capturedAmount: '30.00', refundedAmount: '30.00' });
    expect(state.refunds).toEqual([expect.objectContaining({ id: 'R7', captureId: 'C7', kind: 'reversal' })]);
    expect(state.refundsAwaitingCapture).toBeUndefined();
  });
});

describe('a capture heard of after the lifecycle was voided', () => {
  it('counts the capture the provider made before the void; the lifecycle stays VOIDED', () => {
    const state = authorizedState();
    markEnded(state, 'VOIDED');
    applyEvent(state, captureCompletedEvent('30.00', { captureId: 'C8' }), '2026-05-02T10:00:01Z');
    expect(state).toMatchObject({ status: 'VOIDED', capturedAmount: '30.00' });
  });
});

describe('money that comes back', () => {
  const refundEvent = (fields: Partial<PaymentEvent>): PaymentEvent => ({
    id: `WH-${Math.random()}`,
    eventType: 'capture.refunded',
    captureId: 'C1',
    refundId: 'R1',
    amount: usd('100.00'),
    ...fields,
  });

  it('a failed refund moves the capture and the lifecycle back, and the refund can be asked again', () => {
    const state = capturedState('100.00', { C1: '100.00' });
    applyRefund(state, {
      id: 'R1',
      captureId: 'C1',
      kind: 'refund',
      status: 'COMPLETED',
      amount: usd('100.00'),
    });
    expect(state).toMatchObject({ status: 'REFUNDED', refundedAmount: '100.00' });
    const failed = eventOf(
      refundDelivery('PAYMENT.CAPTURE.REFUNDED', 'R1', 'C1', '100.00').replace('"COMPLETED"', '"FAILED"'),
    );
    expect(failed.movement).toBe('refund-returned');
    expect(applyEvent(state, failed, 't1').applied).toBe(true);
    expect(state).toMatchObject({ status: 'CAPTURED', refundedAmount: '0.00' });
    expect(state.captures[0]).toMatchObject({ status: 'COMPLETED', refundedAmount: '0.00' });
    expect(state.refunds?.[0]?.status).toBe('FAILED');
    applyRefund(state, {
      id: 'R2',
      captureId: 'C1',
      kind: 'refund',
      status: 'COMPLETED',
      amount: usd('100.00'),
    });
    expect(state).toMatchObject({ status: 'REFUNDED', refundedAmount: '100.00' });
  });

  it('a dispute the merchant won reinstates the funds it withdrew', () => {
    const state = capturedState('100.00', { C1: '100.00' });
    const dispute = { eventType: 'capture.reversed' as const, refundId: 'du_1' };
    applyEvent(state, refundEvent({ ...dispute, movement: 'dispute-withdrawn' }), 't1');
    expect(state).toMatchObject({ status: 'REVERSED', refundedAmount: '100.00' });
    applyEvent(state, refundEvent({ ...dispute, movement: 'dispute-reinstated' }), 't2');
    expect(state).toMatchObject({ status: 'CAPTURED', refundedAmount: '0.00' });
    expect(state.captures[0]?.status).toBe('COMPLETED');
    expect(state.ledger.movements.map((movement) => movement.kind).slice(-2)).toEqual([
      'dispute-withdrawn',
      'dispute-reinstated',
    ]);
  });

  it('an inquiry is recorded without withdrawing funds', () => {
    const state = capturedState('100.00', { C1: '100.00' });
    const inquiry = refundEvent({
      eventType: 'capture.reversed',
      refundId: 'du_1',
      movement: 'dispute-inquiry',
    });
    expect(applyEvent(state, inquiry, 't1').applied).toBe(true);
    expect(state.status).toBe('CAPTURED');
    expect(state.refundedAmount).toBeUndefined();
    expect(state.captures[0]?.status).toBe('COMPLETED');
    expect(state.refunds).toMatchObject([{ id: 'du_1', kind: 'reversal', status: 'INQUIRY' }]);
    expect(state.ledger.movements.at(-1)).toMatchObject({ kind: 'dispute-inquiry', reference: 'du_1' });
  });
});
