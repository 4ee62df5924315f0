import { parsePaymentEvent, paypalLifecycleEventTypes } from '../../src/providers/paypal/payment-event';

// PayPal's event names mapped onto the lifecycle's vocabulary (PaymentEventKind). Pure: no Temporal server.

function delivery(eventType: string, resource: Record<string, unknown>): string {
  return JSON.stringify({ id: 'WH-1', event_type: eventType, create_time: '2026-05-02T10:00:00Z', resource });
}

const authorization = { id: 'A1', status: 'VOIDED', amount: { currency_code: 'USD', value: '10.00' } };
const capture = {
  id: 'C1',
  status: 'DECLINED',
  amount: { currency_code: 'USD', value: '10.00' },
  links: [{ href: 'https://api.paypal.com/v2/payments/authorizations/A1', rel: 'up', method: 'GET' }],
};

function kindOf(body: string): string {
  const parsed = parsePaymentEvent(body);
  return parsed.routable ? parsed.event.eventType : `unroutable: ${parsed.reason}`;
}

describe('PayPal events in the lifecycle vocabulary', () => {
  it('names authorization events as the lifecycle does', () => {
    expect(kindOf(delivery('PAYMENT.AUTHORIZATION.CREATED', authorization))).toBe('authorization.created');
    expect(kindOf(delivery('PAYMENT.AUTHORIZATION.VOIDED', authorization))).toBe('authorization.voided');
  });

  it('reads a DENIED capture and a DECLINED one alike: declined', () => {
    expect(kindOf(delivery('PAYMENT.CAPTURE.DENIED', capture))).toBe('capture.declined');
    expect(kindOf(delivery('PAYMENT.CAPTURE.DECLINED', capture))).toBe('capture.declined');
    expect(kindOf(delivery('PAYMENT.CAPTURE.PENDING', capture))).toBe('capture.pending');
    expect(parsePaymentEvent(delivery('PAYMENT.CAPTURE.COMPLETED', capture))).toMatchObject({
      routable: true,
      event: { eventType: 'capture.completed', authorizationId: 'A1', captureId: 'C1' },
    });
  });

  it('routes no payment event outside the vocabulary', () => {
    expect(kindOf(delivery('PAYMENT.CAPTURE.SETTLED', capture))).toBe(
      'unroutable: PAYMENT.CAPTURE.SETTLED concerns no authorization',
    );
    expect(kindOf(delivery('PAYMENT.AUTHORIZATION.REVERSED', authorization))).toBe(
      'unroutable: PAYMENT.AUTHORIZATION.REVERSED concerns no authorization',
    );
  });

  it('subscribes the events the lifecycle acts on, not the created authorization', () => {
    expect([...paypalLifecycleEventTypes].sort()).toEqual([
      'PAYMENT.AUTHORIZATION.VOIDED',
      'PAYMENT.CAPTURE.COMPLETED',
      'PAYMENT.CAPTURE.DECLINED',
      'PAYMENT.CAPTURE.DENIED',
      'PAYMENT.CAPTURE.PENDING',
      'PAYMENT.CAPTURE.REFUNDED',
      'PAYMENT.CAPTURE.REVERSED',
    ]);
  });
});
