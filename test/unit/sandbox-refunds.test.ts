import { PaymentsApiError } from '../../src/providers/paypal/errors';
import { PayPalClient } from '../../src/providers/paypal/client';
import {
  authorizationPath,
  createAuthorization,
  firstIssue,
  startHarness,
  startWebhookListener,
  usd,
  type SandboxHarness,
  type WebhookListener,
} from '../helpers/sandbox-fixtures';

// Refunds as PayPal's Payments v2 documents them: POST /v2/payments/captures/{id}/refund with an optional
// amount, 201 with the refund, the 422 issues of captures.refund, request-id idempotency, and the
// PAYMENT.CAPTURE.REFUNDED / REVERSED events whose resource is the refund.

let harness: SandboxHarness;
let listener: WebhookListener;
beforeAll(async () => {
  harness = await startHarness();
  listener = await startWebhookListener();
  await harness.anonymous.post('/sandbox/webhooks', {
    url: listener.url,
    event_types: [{ name: 'PAYMENT.CAPTURE.REFUNDED' }, { name: 'PAYMENT.CAPTURE.REVERSED' }],
  });
});
afterAll(async () => {
  await harness.close();
  await listener.close();
});

const refundPath = (captureId: string) => `/v2/payments/captures/${captureId}/refund`;

async function capture(value = '100.00', extra: Record<string, unknown> = {}): Promise<string> {
  const { id } = await createAuthorization(harness, { amount: usd(value), ...extra });
  const captured = await harness.api.post(authorizationPath(id, 'capture'), {});
  return (captured.data as { id: string }).id;
}

async function refundsAtProvider(captureId: string): Promise<Array<{ id: string }>> {
  const response = await harness.anonymous.get(`/sandbox/captures/${captureId}/refunds`);
  return (response.data as { refunds: Array<{ id: string }> }).refunds;
}

function eventsReceived(): Array<{ event_type: string; resource_type: string; resource: any }> {
  return listener.received.map((delivery) => JSON.parse(delivery.body.toString('utf8')));
}

describe('payments sandbox: refunds', () => {
  it('refunds part, then the rest when no amount is given; the capture follows', async () => {
    const captureId = await capture('100.00');
    const partial = await harness.api.post(refundPath(captureId), { amount: usd('30.00') });
    expect(partial.status).toBe(201);
    expect(partial.data).toMatchObject({
      id: expect.stringMatching(/^[0-9A-Z]{17}$/),
      status: 'COMPLETED',
      amount: usd('30.00'),
      seller_payable_breakdown: { gross_amount: usd('30.00'), total_refunded_amount: usd('30.00') },
      links: [
        { rel: 'self', method: 'GET', href: expect.stringContaining(`/v2/payments/refunds/`) },
        { rel: 'up', method: 'GET', href: expect.stringContaining(`/v2/payments/captures/${captureId}`) },
      ],
    });
    expect((await harness.api.get(`/v2/payments/captures/${captureId}`)).data).toMatchObject({
      status: 'PARTIALLY_REFUNDED',
    });

    const rest = await harness.api.post(refundPath(captureId), {});
    expect(rest.status).toBe(201);
    expect(rest.data).toMatchObject({
      amount: usd('70.00'),
      seller_payable_breakdown: { total_refunded_amount: usd('100.00') },
    });
    expect((await harness.api.get(`/v2/payments/captures/${captureId}`)).data).toMatchObject({
      status: 'REFUNDED',
    });
    const read = await harness.api.get(`/v2/payments/refunds/${(partial.data as { id: string }).id}`);
    expect(read.data).toEqual(partial.data);
  });

  it('never refunds more than was captured, nor a fully refunded capture', async () => {
    const captureId = await capture('50.00');
    const tooMuch = await harness.api.post(refundPath(captureId), { amount: usd('50.01') });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.data.details[0]).toEqual({
      issue: 'REFUND_AMOUNT_EXCEEDED',
      description:
        'The refund amount must be less than or equal to the capture amount that has not yet been refunded.',
    });
    await harness.api.post(refundPath(captureId), { amount: usd('20.00') });
    expect(firstIssue((await harness.api.post(refundPath(captureId), { amount: usd('30.01') })).data)).toBe(
      'REFUND_AMOUNT_EXCEEDED',
    );
    expect((await harness.api.post(refundPath(captureId), { amount: usd('30.00') })).status).toBe(201);
    const again = await harness.api.post(refundPath(captureId), {});
    expect(again.status).toBe(422);
    expect(again.data.details[0]).toEqual({
      issue: 'CAPTURE_FULLY_REFUNDED',
      description: 'The capture has already been fully refunded',
    });
  });

  it('refuses to refund a refund, a pending capture, another currency, and a bad amount', async () => {
    const captureId = await capture('40.00');
    const refund = await harness.api.post(refundPath(captureId), { amount: usd('1.00') });
    const ofRefund = await harness.api.post(refundPath((refund.data as { id: string }).id), {});
    expect(ofRefund.status).toBe(404);
    expect(ofRefund.data).toMatchObject({ name: 'RESOURCE_NOT_FOUND' });
    expect(firstIssue(ofRefund.data)).toBe('INVALID_RESOURCE_ID');

    const pending = await capture('10.00', { capture_status: 'PENDING' });
    expect(firstIssue((await harness.api.post(refundPath(pending), {})).data)).toBe('PENDING_CAPTURE');
    const euros = await harness.api.post(refundPath(captureId), {
      amount: { currency_code: 'EUR', value: '1.00' },
    });
    expect(firstIssue(euros.data)).toBe('REFUND_CAPTURE_CURRENCY_MISMATCH');
    expect(firstIssue((await harness.api.post(refundPath(captureId), { amount: usd('0.00') })).data)).toBe(
      'CANNOT_BE_ZERO_OR_NEGATIVE',
    );
    const malformed = await harness.api.post(refundPath(captureId), { amount: { value: '1.00' } });
    expect(malformed.status).toBe(400);
    expect(malformed.data.details[0]).toMatchObject({ field: '/amount/currency_code' });
    expect((await harness.api.post(refundPath('NOSUCHCAPTURE'), {})).status).toBe(404);
  });

  it('answers a repeated PayPal-Request-Id with the first refund and refunds once', async () => {
    const captureId = await capture('60.00');
    const headers = { 'PayPal-Request-Id': 'refund-1' };
    const first = await harness.api.post(refundPath(captureId), { amount: usd('10.00') }, { headers });
    const second = await harness.api.post(refundPath(captureId), { amount: usd('10.00') }, { headers });
    expect(second.status).toBe(201);
    expect(second.data).toEqual(first.data);
    expect(await refundsAtProvider(captureId)).toHaveLength(1);
    const other = await harness.api.post(
      refundPath(captureId),
      { amount: usd('10.00') },
      { headers: { 'PayPal-Request-Id': 'refund-2' } },
    );
    expect((other.data as { id: string }).id).not.toBe((first.data as { id: string }).id);
    expect(await refundsAtProvider(captureId)).toHaveLength(2);
  });

  it('answers Prefer: return=minimal with id, status and links only', async () => {
    const captureId = await capture('5.00');
    const minimal = await harness.api.post(
      refundPath(captureId),
      {},
      { headers: { Prefer: 'return=minimal' } },
    );
    expect(minimal.status).toBe(201);
    expect(Object.keys(minimal.data as object).sort()).toEqual(['id', 'links', 'status']);
  });

  it('delivers PAYMENT.CAPTURE.REFUNDED whose resource is the refund, its up link naming the capture', async () => {
    const captureId = await capture('25.00');
    const refund = await harness.api.post(refundPath(captureId), { amount: usd('5.00') });
    await harness.sandbox.deliveriesSettled();
    const event = eventsReceived().find((each) => each.resource.id === (refund.data as { id: string }).id);
    expect(event).toMatchObject({
      event_type: 'PAYMENT.CAPTURE.REFUNDED',
      resource_type: 'refund',
      resource: refund.data,
    });
  });

  it('a chargeback (control API) delivers PAYMENT.CAPTURE.REVERSED and stops refunds', async () => {
    const captureId = await capture('15.00');
    await harness.api.post(refundPath(captureId), { amount: usd('5.00') });
    const reversal = await harness.anonymous.post(`/sandbox/captures/${captureId}/reverse`);
    expect(reversal.status).toBe(201);
    expect(reversal.data).toMatchObject({ amount: usd('10.00'), status: 'COMPLETED' });
    expect(firstIssue((await harness.api.post(refundPath(captureId), {})).data)).toBe(
      'REFUND_NOT_PERMITTED_DUE_TO_CHARGEBACK',
    );
    await harness.sandbox.deliveriesSettled();
    expect(eventsReceived()).toContainEqual(
      expect.objectContaining({
        event_type: 'PAYMENT.CAPTURE.REVERSED',
        resource: expect.objectContaining({ id: (reversal.data as { id: string }).id }),
      }),
    );
  });

  it('a refund that fails or is canceled (control API) gives its amount back to the capture', async () => {
    const captureId = await capture('50.00');
    const first = (await harness.api.post(refundPath(captureId), { amount: usd('20.00') })).data as {
      id: string;
    };
    const rest = (await harness.api.post(refundPath(captureId), {})).data as { id: string };
    expect((await harness.api.get(`/v2/payments/captures/${captureId}`)).data).toMatchObject({
      status: 'REFUNDED',
    });

    const failed = await harness.anonymous.post(`/sandbox/refunds/${rest.id}/fail`);
    expect(failed.status).toBe(200);
    expect(failed.data).toMatchObject({ id: rest.id, status: 'FAILED', amount: usd('30.00') });
    expect((await harness.api.get(`/v2/payments/refunds/${rest.id}`)).data).toMatchObject({
      status: 'FAILED',
    });
    expect((await harness.api.get(`/v2/payments/captures/${captureId}`)).data).toMatchObject({
      status: 'PARTIALLY_REFUNDED',
    });
    const canceled = await harness.anonymous.post(`/sandbox/refunds/${first.id}/cancel`);
    expect(canceled.data).toMatchObject({ id: first.id, status: 'CANCELLED' });
    expect((await harness.api.get(`/v2/payments/captures/${captureId}`)).data).toMatchObject({
      status: 'COMPLETED',
    });
    // Only a completed refund comes back, once.
    expect(firstIssue((await harness.anonymous.post(`/sandbox/refunds/${first.id}/fail`)).data)).toBe(
      'REFUND_NOT_COMPLETED',
    );

    // The capture is refundable again, in full.
    const again = await harness.api.post(refundPath(captureId), {});
    expect(again.status).toBe(201);
    expect(again.data).toMatchObject({ amount: usd('50.00') });
    await harness.sandbox.deliveriesSettled();
    const refundEvents = eventsReceived().filter(
      (event) =>
        event.event_type === 'PAYMENT.CAPTURE.REFUNDED' && [first.id, rest.id].includes(event.resource.id),
    );
    expect(refundEvents.map((event) => event.resource.status)).toEqual([
      'COMPLETED',
      'COMPLETED',
      'FAILED',
      'CANCELLED',
    ]);
  });

  it('a reversal cannot fail as a refund does', async () => {
    const captureId = await capture('15.00');
    const reversal = (await harness.anonymous.post(`/sandbox/captures/${captureId}/reverse`)).data as {
      id: string;
    };
    const failed = await harness.anonymous.post(`/sandbox/refunds/${reversal.id}/fail`);
    expect(failed.status).toBe(422);
    expect(firstIssue(failed.data)).toBe('REFUND_NOT_COMPLETED');
  });

  it('offers both event types for subscription', async () => {
    const names = (
      (await harness.api.get('/v1/notifications/webhooks-event-types')).data as {
        event_types: Array<{ name: string }>;
      }
    ).event_types.map((type) => type.name);
    expect(names).toEqual(expect.arrayContaining(['PAYMENT.CAPTURE.REFUNDED', 'PAYMENT.CAPTURE.REVERSED']));
  });
});

describe('payments client: refundCapture', () => {
  const client = () =>
    new PayPalClient({
      baseUrl: harness.sandbox.url,
      credentials: { clientId: 'sandbox-client', clientSecret: 'sandbox-secret' },
      dialect: 'paypal',
    });

  it('asks for the representation, keyed by the request id, and answers the refund', async () => {
    const captureId = await capture('80.00');
    const first = await client().refundCapture(captureId, { amount: usd('8.00') }, 'order-7-refund');
    const again = await client().refundCapture(captureId, { amount: usd('8.00') }, 'order-7-refund');
    expect(first).toMatchObject({ status: 'COMPLETED', amount: usd('8.00') });
    expect(again).toEqual(first);
    expect(await refundsAtProvider(captureId)).toHaveLength(1);
  });

  it('turns a refusal into an error carrying the provider issue', async () => {
    const captureId = await capture('3.00');
    await expect(client().refundCapture(captureId, { amount: usd('4.00') })).rejects.toMatchObject({
      name: 'UNPROCESSABLE_ENTITY',
      details: [expect.objectContaining({ issue: 'REFUND_AMOUNT_EXCEEDED' })],
    });
    await expect(client().refundCapture('', {})).rejects.toBeInstanceOf(PaymentsApiError);
  });
});
