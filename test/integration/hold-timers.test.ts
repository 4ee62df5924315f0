import { postJson } from '../../bench/provider-sandboxes';
import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { eventually } from '../helpers/eventually';
import { paypalFixture, stripeFixture } from '../helpers/provider-fixtures';
import { useProviderStack } from '../helpers/provider-stack';

// The hold's real end drives the lifecycle's timers, through the API, a worker and the sandbox, with the
// deployment's defaults (no REAUTHORIZE_AFTER): each provider's hold is reauthorized as its provider keeps it.

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

describe('a PayPal hold', () => {
  const stack = useProviderStack(paypalFixture);

  it('is reauthorized when its 3-day honor period ends, and its policy runs an hour before its 29 days', async () => {
    const authorizationId = await stack.startLifecycle('100.00');
    const state = await stack.state(authorizationId);
    const made = Date.parse(state.authorizationCreateTime);
    expect(state.nextTimer).toEqual({
      kind: 'reauthorize',
      at: new Date(made + 3 * DAY_MS).toISOString(),
      why: "the provider's honor period of 3 days ends: a reauthorization renews the funds",
    });
    expect(Date.parse(state.expiryPolicyAt)).toBe(made + 29 * DAY_MS - HOUR_MS);
  });

  it('is not started with an extended authorization, which PayPal does not offer', async () => {
    const authorizationId = await stack.authorize('100.00');
    const refused = await stack.api.post('/v1/lifecycles', { authorizationId, extendedAuthorization: true });
    expect(refused).toMatchObject({ status: 400, data: { error: { code: 'VALIDATION_FAILED' } } });
    expect(refused.data.error.message).toBe(
      'extendedAuthorization: paypal offers no extended authorization; leave it out',
    );
  });
});

describe('a Stripe hold', () => {
  const stack = useProviderStack(stripeFixture);

  it('is reauthorized a day before its capture_before, by the timer, and the run is in the ledger', async () => {
    // A hold of one day: a day before its end is now.
    const intent = await postJson<{ id: string }>(`${stack.sandbox.url}/sandbox/payment_intents`, {
      amount: 5000,
      currency: 'usd',
      hold_days: 1,
    });
    const started = await stack.api.post('/v1/lifecycles', { authorizationId: intent.id });
    expect(started.status).toBe(201);
    const endsAt = (started.data.state as LifecycleState).expirationTime as string;

    const renewed: LifecycleState = await eventually(
      () => stack.state(intent.id),
      (state) => state.reauthorizations.length === 1,
      { what: 'the timer to reauthorize the hold', timeoutMs: 30_000 },
    );
    const newIntent = renewed.currentAuthorizationId;
    expect(newIntent).not.toBe(intent.id);
    expect(renewed.reauthorizations[0]).toMatchObject({ reason: 'timer', toAuthorizationId: newIntent });
    expect(renewed.ledger.timerRuns).toEqual([
      {
        timer: 'reauthorize',
        at: expect.any(String),
        why: `a day before the hold ends at ${endsAt}`,
        outcome: 'reauthorized',
        reference: newIntent,
      },
    ]);
    // The new hold ends when Stripe says: its policy runs an hour before, and nothing is reauthorized again.
    const newEnd = renewed.expirationTime as string;
    expect(Date.parse(newEnd)).toBeGreaterThan(Date.parse(endsAt));
    expect(renewed.nextTimer).toEqual({
      kind: 'expiryPolicy',
      at: new Date(Date.parse(newEnd) - HOUR_MS).toISOString(),
      why: `an hour before the hold ends at ${newEnd}`,
    });
    const old = await fetch(`${stack.sandbox.url}/v1/payment_intents/${intent.id}`, {
      headers: { authorization: 'Bearer sk_test_sandbox' },
    });
    expect(await old.json()).toMatchObject({ status: 'canceled' });
  });
});
