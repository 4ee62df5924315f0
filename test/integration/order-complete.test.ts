import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { freshKey } from '../helpers/lifecycle-stack';
import { paypalFixture, stripeFixture } from '../helpers/provider-fixtures';
import { useProviderStack } from '../helpers/provider-stack';

// Completing an order through the API, a worker and the sandbox: nothing more is captured, what remains held
// goes back to the payer through the provider, and the captures stand.

describe('an order completed after a partial capture (paypal)', () => {
  const stack = useProviderStack(paypalFixture);
  const complete = (authorizationId: string, key = freshKey()) =>
    stack.api.post(`/v1/lifecycles/${authorizationId}/complete`, {}, key);

  it('releases what remains through a void, keeps the capture refundable, and answers a retry the same', async () => {
    const authorizationId = await stack.startLifecycle('100.00');
    const capture = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount: '30.00', finalCapture: false },
      freshKey(),
    );
    expect(capture.status).toBe(200);
    const key = freshKey();

    const completed = await complete(authorizationId, key);
    expect(completed).toMatchObject({
      status: 200,
      data: { authorizationId, released: { currency_code: 'USD', value: '70.00' }, status: 'CAPTURED' },
    });
    expect((await complete(authorizationId, key)).data).toEqual(completed.data);
    const state: LifecycleState = await stack.state(authorizationId);
    expect(state).toMatchObject({ status: 'CAPTURED', capturedAmount: '30.00', remainingAmount: '0.00' });
    expect(state.ledger.movements.at(-1)).toMatchObject({
      kind: 'release',
      reason: 'order-complete',
      reference: authorizationId,
      minorUnits: '7000',
      source: 'answer',
    });
    expect((await paypalFixture.provider(stack.sandbox).getAuthorization(authorizationId)).status).toBe(
      'VOIDED',
    );

    expect(
      await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, { amount: '10.00' }, freshKey()),
    ).toMatchObject({ status: 409, data: { error: { code: 'LIFECYCLE_STATE_FORBIDS' } } });
    const captureId = capture.data.id as string;
    const refund = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/captures/${captureId}/refund`,
      {},
      freshKey(),
    );
    expect(refund.status).toBe(200);
    await stack.sandbox.deliveriesSettled();
    const refunded = await stack.state(authorizationId);
    expect(refunded).toMatchObject({ status: 'REFUNDED', refundedAmount: '30.00', remainingAmount: '0.00' });
    // PayPal's event of the void is recorded, and ends nothing: the capture stands.
    expect(refunded.recentEvents).toContainEqual(
      expect.objectContaining({ eventType: 'authorization.voided', applied: false }),
    );
    expect(refunded.ledger.discrepancies).toEqual([]);
  });

  it('is refused while nothing was captured: a void releases the whole hold', async () => {
    const authorizationId = await stack.startLifecycle('40.00');
    const refused = await complete(authorizationId);
    expect(refused).toMatchObject({ status: 409, data: { error: { code: 'LIFECYCLE_STATE_FORBIDS' } } });
    expect(refused.data.error.message).toContain('nothing was captured; void the authorization');
    expect((await paypalFixture.provider(stack.sandbox).getAuthorization(authorizationId)).status).toBe(
      'CREATED',
    );
  });
});

describe('an order completed on a Stripe multicapture intent', () => {
  const stack = useProviderStack(stripeFixture);

  it('is refused before Stripe: its rest is released only by the final capture', async () => {
    const authorizationId = await stack.startLifecycle('100.00', {}, { severalCaptures: true });
    const capture = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount: '30.00', finalCapture: false },
      freshKey(),
    );
    expect(capture.status).toBe(200);
    const refused = await stack.api.post(`/v1/lifecycles/${authorizationId}/complete`, {}, freshKey());
    expect(refused).toMatchObject({ status: 409, data: { error: { code: 'LIFECYCLE_STATE_FORBIDS' } } });
    expect(refused.data.error.message).toContain('only with its final capture');
    expect(await stack.state(authorizationId)).toMatchObject({
      status: 'PARTIALLY_CAPTURED',
      remainingAmount: '70.00',
    });
  });
});
