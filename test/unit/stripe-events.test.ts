import Stripe from 'stripe';
import { fromStripeAmount, toStripeAmount } from '../../src/providers/stripe/money';
import { parseStripeEvent, stripeLifecycleEventTypes } from '../../src/providers/stripe/payment-event';
import { stripeIdempotencyKey } from '../../src/providers/stripe/keys';
import { stripeSignatureHeader, verifyStripeSignature } from '../../src/providers/stripe/webhook-signature';
import { chargeJson, paymentIntentJson, refundJson } from '../helpers/stripe-objects';

const event = (type: string, object: unknown) =>
  JSON.stringify({ id: 'evt_1', object: 'event', type, created: 1_780_000_200, data: { object } });

describe('Stripe events in the lifecycle vocabulary', () => {
  it('a captured charge is a completed capture of its PaymentIntent', () => {
    const parsed = parseStripeEvent(
      event('charge.captured', chargeJson({ captured: true, amount_captured: 2500 })),
    );
    expect(parsed).toEqual({
      routable: true,
      event: {
        id: 'evt_1',
        eventType: 'capture.completed',
        authorizationId: 'pi_1',
        captureId: 'ch_1',
        status: 'COMPLETED',
        amount: { currency_code: 'USD', value: '25.00' },
        finalCapture: true,
        createTime: new Date(1_780_000_000_000).toISOString(),
      },
    });
  });

  it('a succeeded intent says what it captured in all, into which charge', () => {
    const parsed = parseStripeEvent(
      event(
        'payment_intent.succeeded',
        paymentIntentJson({ status: 'succeeded', amount_capturable: 0, amount_received: 3000 }),
      ),
    );
    expect(parsed.routable && parsed.event).toMatchObject({
      eventType: 'authorization.captured',
      authorizationId: 'pi_1',
      captureId: 'ch_1',
      capturedTotal: { currency_code: 'USD', value: '30.00' },
    });
  });

  it('a canceled intent is a void, an expired one an expiry', () => {
    const voided = parseStripeEvent(
      event(
        'payment_intent.canceled',
        paymentIntentJson({ status: 'canceled', cancellation_reason: 'abandoned' }),
      ),
    );
    const expired = parseStripeEvent(
      event(
        'payment_intent.canceled',
        paymentIntentJson({ status: 'canceled', cancellation_reason: 'expired' }),
      ),
    );
    expect(voided.routable && voided.event).toMatchObject({
      eventType: 'authorization.voided',
      authorizationId: 'pi_1',
    });
    expect(expired.routable && expired.event.eventType).toBe('authorization.expired');
  });

  it('a refunded charge moves nothing: its refund events book each refund once', () => {
    const parsed = parseStripeEvent(
      event(
        'charge.refunded',
        chargeJson({ captured: true, amount_captured: 5000, amount_refunded: 1500, refunded: false }),
      ),
    );
    expect(parsed).toEqual({
      routable: false,
      eventId: 'evt_1',
      eventType: 'charge.refunded',
      reason: 'charge.refunded names no refund: its refunds arrive as refund events',
    });
  });

  it('a refund names its charge as the capture it refunds', () => {
    const parsed = parseStripeEvent(event('charge.refund.updated', refundJson({ status: 'pending' })));
    expect(parsed.routable && parsed.event).toMatchObject({
      eventType: 'capture.refunded',
      captureId: 'ch_1',
      refundId: 're_1',
      status: 'PENDING',
      amount: { currency_code: 'USD', value: '10.00' },
    });
  });

  it('a dispute is a reversal of its charge, cancelled when the merchant wins it', () => {
    const dispute = {
      id: 'du_1',
      object: 'dispute',
      amount: 5000,
      currency: 'usd',
      charge: 'ch_1',
      created: 1,
    };
    const opened = parseStripeEvent(
      event('charge.dispute.created', { ...dispute, status: 'needs_response' }),
    );
    const won = parseStripeEvent(event('charge.dispute.closed', { ...dispute, status: 'won' }));
    expect(opened.routable && opened.event).toMatchObject({
      eventType: 'capture.reversed',
      captureId: 'ch_1',
      refundId: 'du_1',
      status: 'COMPLETED',
    });
    expect(won.routable && won.event.status).toBe('CANCELLED');
  });

  it('a dispute moves funds in the ledger’s words: an inquiry none, funds withdrawn, reinstated when won', () => {
    const dispute = {
      id: 'du_1',
      object: 'dispute',
      amount: 5000,
      currency: 'usd',
      charge: 'ch_1',
      created: 1,
    };
    const movementOf = (type: string, status: string) => {
      const parsed = parseStripeEvent(event(type, { ...dispute, status }));
      return parsed.routable ? parsed.event.movement : parsed.reason;
    };
    expect([
      movementOf('charge.dispute.created', 'warning_needs_response'),
      movementOf('charge.dispute.closed', 'warning_under_review'),
      movementOf('charge.dispute.closed', 'warning_closed'),
      movementOf('charge.dispute.created', 'needs_response'),
      movementOf('charge.dispute.funds_withdrawn', 'needs_response'),
      movementOf('charge.dispute.funds_reinstated', 'under_review'),
      movementOf('charge.dispute.closed', 'won'),
      movementOf('charge.dispute.closed', 'lost'),
    ]).toEqual([
      'dispute-inquiry',
      'dispute-inquiry',
      'dispute-inquiry',
      'dispute-withdrawn',
      'dispute-withdrawn',
      'dispute-reinstated',
      'dispute-reinstated',
      'dispute-withdrawn',
    ]);
  });

  it('a refund that failed or was canceled comes back', () => {
    const movementOf = (status: string) => {
      const parsed = parseStripeEvent(event('refund.updated', refundJson({ status })));
      return parsed.routable && [parsed.event.status, parsed.event.movement];
    };
    expect(['succeeded', 'pending', 'failed', 'canceled'].map(movementOf)).toEqual([
      ['COMPLETED', 'refund'],
      ['PENDING', 'refund'],
      ['FAILED', 'refund-returned'],
      ['CANCELLED', 'refund-returned'],
    ]);
  });

  it('routes every event type a Stripe endpoint enables for the lifecycle, and no other it delivers', () => {
    const dispute = {
      id: 'du_1',
      object: 'dispute',
      amount: 5000,
      currency: 'usd',
      charge: 'ch_1',
      created: 1,
    };
    const objectOf = (type: string): unknown => {
      if (type.startsWith('payment_intent.')) return paymentIntentJson();
      if (type.startsWith('charge.dispute.')) return { ...dispute, status: 'needs_response' };
      if (type.startsWith('charge.')) return type === 'charge.refund.updated' ? refundJson() : chargeJson();
      return refundJson();
    };
    const routes = (type: string) => parseStripeEvent(event(type, objectOf(type))).routable;
    expect(stripeLifecycleEventTypes.filter((type) => !routes(type))).toEqual([]);
    expect(['charge.refunded', 'refund.failed', 'customer.created'].map(routes)).toEqual([
      false,
      false,
      false,
    ]);
  });

  it('says why an event concerns no authorization', () => {
    expect(parseStripeEvent(event('customer.created', { id: 'cus_1' }))).toMatchObject({
      routable: false,
      eventId: 'evt_1',
      reason: 'customer.created concerns no authorization',
    });
    expect(parseStripeEvent('{"id":"x"}')).toMatchObject({ routable: false });
    expect(parseStripeEvent('not json')).toEqual({ routable: false, reason: 'the body is not JSON' });
  });
});

describe('Stripe-Signature', () => {
  const body = event('charge.captured', chargeJson());
  const now = new Date('2026-11-25T12:00:00Z');
  const t = Math.floor(now.getTime() / 1000);
  const delivery = (header: string) => ({ headers: { 'stripe-signature': header }, body });

  it('accepts a signature by any one of the endpoint secrets, and the SDK accepts ours', () => {
    const header = stripeSignatureHeader(body, ['whsec_old', 'whsec_new'], t);
    expect(header.split(',').filter((part) => part.startsWith('v1='))).toHaveLength(2);
    expect(verifyStripeSignature(delivery(header), ['whsec_new'], now)).toEqual({
      verification_status: 'SUCCESS',
    });
    expect(
      verifyStripeSignature(delivery(header), ['whsec_other', 'whsec_old'], now).verification_status,
    ).toBe('SUCCESS');
    expect(() =>
      Stripe.webhooks.constructEvent(body, header, 'whsec_old', 300, undefined, now.getTime()),
    ).not.toThrow();
  });

  it('refuses another secret, a changed body, and a timestamp outside 300 s', () => {
    const header = stripeSignatureHeader(body, ['whsec_a'], t);
    expect(verifyStripeSignature(delivery(header), ['whsec_b'], now).verification_status).toBe('FAILURE');
    expect(
      verifyStripeSignature({ ...delivery(header), body: `${body} ` }, ['whsec_a'], now).verification_status,
    ).toBe('FAILURE');
    const stale = stripeSignatureHeader(body, ['whsec_a'], t - 301);
    expect(verifyStripeSignature(delivery(stale), ['whsec_a'], now).verification_status).toBe('FAILURE');
    const recent = stripeSignatureHeader(body, ['whsec_a'], t - 299);
    expect(verifyStripeSignature(delivery(recent), ['whsec_a'], now).verification_status).toBe('SUCCESS');
    expect(verifyStripeSignature({ headers: {}, body }, ['whsec_a'], now)).toMatchObject({
      verification_status: 'FAILURE',
    });
  });
});

describe('Stripe amounts and keys', () => {
  it('converts exactly, in Stripe units per currency', () => {
    expect(toStripeAmount({ currency_code: 'USD', value: '19.99' })).toEqual({
      amount: 1999,
      currency: 'usd',
    });
    expect(toStripeAmount({ currency_code: 'JPY', value: '1000' })).toEqual({
      amount: 1000,
      currency: 'jpy',
    });
    expect(toStripeAmount({ currency_code: 'KWD', value: '1.234' })).toEqual({
      amount: 1234,
      currency: 'kwd',
    });
    expect(toStripeAmount({ currency_code: 'HUF', value: '100' })).toEqual({
      amount: 10000,
      currency: 'huf',
    });
    expect(toStripeAmount({ currency_code: 'USD', value: '0.001' })).toBeUndefined();
    expect(fromStripeAmount(1999, 'usd')).toEqual({ currency_code: 'USD', value: '19.99' });
    expect(fromStripeAmount(5, 'usd')).toEqual({ currency_code: 'USD', value: '0.05' });
    expect(fromStripeAmount(1000, 'jpy')).toEqual({ currency_code: 'JPY', value: '1000' });
    expect(fromStripeAmount(10000, 'huf')).toEqual({ currency_code: 'HUF', value: '100' });
  });

  it('derives a distinct Stripe key per operation from one caller key', () => {
    const keys = (
      ['capture', 'refund', 'cancel', 'reauthorize-create', 'reauthorize-cancel-previous'] as const
    ).map((operation) => stripeIdempotencyKey(operation, 'pi_1/capture/k'));
    expect(new Set(keys).size).toBe(keys.length);
  });
});
