import { postJson } from '../../bench/provider-sandboxes';
import { freshKey } from '../helpers/lifecycle-stack';
import { paypalFixture, stripeFixture } from '../helpers/provider-fixtures';
import { useProviderStack } from '../helpers/provider-stack';

// Overcapture through the API, a worker and the sandbox: a lifecycle started with `overcapture` may capture past
// the authorization by its provider's documented allowance (PayPal: captures up to 115 % of it, at most 75 USD
// more; Stripe: the charge's maximum_amount_capturable, on a card that allows overcapture), never further.

describe('a PayPal lifecycle started with overcapture', () => {
  const stack = useProviderStack(paypalFixture);
  const capture = (authorizationId: string, body: Record<string, unknown>) =>
    stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, body, freshKey());

  it('captures what remains and 15 % of the hold more, as the last capture, and no further', async () => {
    const authorizationId = await stack.startLifecycle('100.00', { overcapture: true });
    expect((await capture(authorizationId, { amount: '30.00' })).status).toBe(200);

    const beyond = await capture(authorizationId, { amount: '85.01' });
    expect(beyond).toMatchObject({ status: 409, data: { error: { code: 'LIFECYCLE_STATE_FORBIDS' } } });
    expect(beyond.data.error.message).toBe(
      'amount: 85.01 USD is more than the 70.00 that remains and the 15.00 its provider lets a capture exceed the hold by',
    );
    const notLast = await capture(authorizationId, { amount: '85.00', finalCapture: false });
    expect(notLast).toMatchObject({ status: 400, data: { error: { code: 'VALIDATION_FAILED' } } });
    expect(notLast.data.error.message).toMatch(
      /^finalCapture: a capture beyond the 70.00 that remains is the last/,
    );

    const last = await capture(authorizationId, { amount: '85.00' });
    expect(last).toMatchObject({ status: 200, data: { final_capture: true } });
    const state = await stack.state(authorizationId);
    expect(state).toMatchObject({
      status: 'CAPTURED',
      overcapture: true,
      capturedAmount: '115.00',
      remainingAmount: '0.00',
    });
    expect(state.ledger.discrepancies).toEqual([]);
    expect((await paypalFixture.captured(stack.sandbox, authorizationId)).total).toBe('115.00');
  });

  it('keeps every other lifecycle at what remains', async () => {
    const authorizationId = await stack.startLifecycle('100.00');
    const refused = await capture(authorizationId, { amount: '100.01' });
    expect(refused).toMatchObject({ status: 409, data: { error: { code: 'LIFECYCLE_STATE_FORBIDS' } } });
    expect(refused.data.error.message).toBe('amount: 100.01 USD is more than the 100.00 that remains');
  });
});

describe('a Stripe lifecycle started with overcapture', () => {
  const stack = useProviderStack(stripeFixture);

  it('captures no more than remains on a card without overcapture: Stripe reports no maximum', async () => {
    const authorizationId = await stack.startLifecycle('100.00', { overcapture: true });
    const refused = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount: '100.01' },
      freshKey(),
    );
    expect(refused).toMatchObject({ status: 409, data: { error: { code: 'LIFECYCLE_STATE_FORBIDS' } } });
    expect(refused.data.error.message).toContain('the 0.00 its provider lets a capture exceed the hold by');
  });
});

describe('a Stripe hold whose card allows overcapture', () => {
  const stack = useProviderStack(stripeFixture);

  it("takes up to the charge's maximum_amount_capturable in one last capture, in a lifecycle started with overcapture", async () => {
    const intent = await postJson<{ id: string }>(`${stack.sandbox.url}/sandbox/payment_intents`, {
      amount: 10000,
      currency: 'usd',
      overcapture: true,
    });
    const started = await stack.api.post('/v1/lifecycles', { authorizationId: intent.id, overcapture: true });
    expect(started.data.state).toMatchObject({ captureMaximum: '120.00', overcapture: true });
    const capture = (amount: string) =>
      stack.api.post(`/v1/lifecycles/${intent.id}/capture`, { amount }, freshKey());
    const beyond = await capture('120.01');
    expect(beyond).toMatchObject({ status: 409, data: { error: { code: 'LIFECYCLE_STATE_FORBIDS' } } });
    expect(beyond.data.error.message).toBe(
      'amount: 120.01 USD is more than the 100.00 that remains and the 20.00 its provider lets a capture exceed the hold by',
    );
    expect(await capture('120.00')).toMatchObject({ status: 200, data: { final_capture: true } });
    await stack.sandbox.deliveriesSettled();
    const state = await stack.state(intent.id);
    expect(state).toMatchObject({ status: 'CAPTURED', capturedAmount: '120.00', remainingAmount: '0.00' });
    expect(state.ledger.discrepancies).toEqual([]);
    expect((await stripeFixture.captured(stack.sandbox, intent.id)).total).toBe('120.00');
  });
});
