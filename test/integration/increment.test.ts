import { postJson } from '../../bench/provider-sandboxes';
import { freshKey } from '../helpers/lifecycle-stack';
import { paypalFixture, stripeFixture } from '../helpers/provider-fixtures';
import { useProviderStack } from '../helpers/provider-stack';

// Incremental authorization through the API, a worker and the sandbox: a hold the payer's card lets raise in
// place (Stripe's increment_authorization) is raised once per key and booked as a hold-increment; any other is
// refused before the provider is called.

async function atStripe<T>(sandboxUrl: string, path: string): Promise<T> {
  const response = await fetch(`${sandboxUrl}/v1/${path}`, {
    headers: { authorization: 'Bearer sk_test_sandbox' },
  });
  return (await response.json()) as T;
}

describe('an incremental authorization on Stripe', () => {
  const stack = useProviderStack(stripeFixture);
  const increment = (authorizationId: string, amount: string, key = freshKey()) =>
    stack.api.post(`/v1/lifecycles/${authorizationId}/increment`, { amount }, key);

  async function startedIntent(incremental: boolean): Promise<string> {
    const intent = await postJson<{ id: string }>(`${stack.sandbox.url}/sandbox/payment_intents`, {
      amount: 10000,
      currency: 'usd',
      incremental,
    });
    expect((await stack.api.post('/v1/lifecycles', { authorizationId: intent.id })).status).toBe(201);
    return intent.id;
  }

  it('raises the hold once per key, books it, and lets the raised amount be captured', async () => {
    const authorizationId = await startedIntent(true);
    const key = freshKey();
    const raised = await increment(authorizationId, '20.00', key);
    expect(raised).toMatchObject({ status: 200, data: { id: authorizationId, amount: { value: '120.00' } } });
    expect((await increment(authorizationId, '20.00', key)).data).toEqual(raised.data);
    expect(
      (await atStripe<{ amount: number }>(stack.sandbox.url, `payment_intents/${authorizationId}`)).amount,
    ).toBe(12000);
    const state = await stack.state(authorizationId);
    expect(state).toMatchObject({
      authorizedAmount: '120.00',
      remainingAmount: '120.00',
      status: 'AUTHORIZED',
    });
    expect(state.ledger.movements).toContainEqual(
      expect.objectContaining({
        kind: 'hold-increment',
        of: authorizationId,
        minorUnits: '2000',
        source: 'answer',
      }),
    );

    const reconciled = await stack.api.post(`/v1/lifecycles/${authorizationId}/reconcile`, {});
    expect(reconciled).toMatchObject({ status: 200, data: { recorded: [], discrepancies: [] } });

    const captured = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
    expect(captured).toMatchObject({ status: 200, data: { amount: { value: '120.00' } } });
    expect(await stack.state(authorizationId)).toMatchObject({
      status: 'CAPTURED',
      capturedAmount: '120.00',
    });
    const refused = await increment(authorizationId, '5.00');
    expect(refused.status).toBe(409);
  });

  it('is refused before Stripe on a card that does not allow it, and without a key', async () => {
    const authorizationId = await startedIntent(false);
    const refused = await increment(authorizationId, '20.00');
    expect(refused).toMatchObject({ status: 409, data: { error: { code: 'LIFECYCLE_STATE_FORBIDS' } } });
    expect(refused.data.error.message).toContain(
      `authorization ${authorizationId} cannot be raised in place`,
    );
    const keyless = await stack.api.post(`/v1/lifecycles/${authorizationId}/increment`, { amount: '20.00' });
    expect(keyless).toMatchObject({ status: 400, data: { error: { code: 'VALIDATION_FAILED' } } });
    expect(
      (await atStripe<{ amount: number }>(stack.sandbox.url, `payment_intents/${authorizationId}`)).amount,
    ).toBe(10000);
  });
});

describe('an incremental authorization on PayPal', () => {
  const stack = useProviderStack(paypalFixture);

  it('is refused before PayPal, which has none', async () => {
    const authorizationId = await stack.startLifecycle('100.00');
    const refused = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/increment`,
      { amount: '20.00' },
      freshKey(),
    );
    expect(refused).toMatchObject({ status: 409, data: { error: { code: 'LIFECYCLE_STATE_FORBIDS' } } });
    expect(refused.data.error.message).toContain('paypal does not offer incremental authorization');
    expect(await stack.state(authorizationId)).toMatchObject({ authorizedAmount: '100.00' });
  });
});
