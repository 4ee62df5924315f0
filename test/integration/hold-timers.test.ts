import { postJson } from '../../bench/provider-sandboxes';
import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { eventually } from '../helpers/eventually';
import { paypalFixture, stripeFixture } from '../helpers/provider-fixtures';
import { useProviderStack } from '../helpers/provider-stack';

// The hold's real end drives the lifecycle's timers, through the API, a worker and the sandbox, with the
// deployment's defaults (no REAUTHORIZE_AFTER): each provider's hold is reauthorized as its provider keeps it.

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** A timer's run as the ledger has it, made `at` some time. */
function timerRun(run: Record<string, unknown>): Record<string, unknown> {
  return { at: expect.any(String), ...run };
}

/** Waits for the lifecycle's first timer run. */
function firstTimerRun(state: () => Promise<LifecycleState>, what: string): Promise<LifecycleState> {
  return eventually(state, (each) => (each.ledger.timerRuns ?? []).length > 0, { what, timeoutMs: 30_000 });
}

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

  it('whose end a test moves an hour and seconds away is voided by its policy, and the run is in the ledger', async () => {
    const authorizationId = await stack.authorize('100.00');
    const endsAt = new Date(Math.floor(Date.now() / 1000) * 1000 + HOUR_MS + 4000).toISOString();
    await postJson(`${stack.sandbox.url}/sandbox/authorizations/${authorizationId}/expiration`, {
      expiration_time: endsAt,
    });
    expect((await stack.api.post('/v1/lifecycles', { authorizationId })).status).toBe(201);
    const ended = await firstTimerRun(() => stack.state(authorizationId), 'the expiry policy to run');
    expect(ended.status).toBe('VOIDED');
    const heldUntil = ended.expirationTime as string;
    expect(Date.parse(heldUntil)).toBe(Date.parse(endsAt));
    expect(ended.ledger.timerRuns).toEqual([
      timerRun({
        timer: 'expiryPolicy',
        why: `an hour before the hold ends at ${new Date(heldUntil).toISOString()}`,
        outcome: 'voided',
        reference: authorizationId,
      }),
    ]);
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
  const heldIntent = async (card: Record<string, unknown>) =>
    (
      await postJson<{ id: string }>(`${stack.sandbox.url}/sandbox/payment_intents`, {
        amount: 5000,
        currency: 'usd',
        ...card,
      })
    ).id;
  const atStripe = async (path: string) =>
    (await (
      await fetch(`${stack.sandbox.url}/v1/${path}`, { headers: { authorization: 'Bearer sk_test_sandbox' } })
    ).json()) as Record<string, unknown>;
  const intentAtStripe = (id: string) => atStripe(`payment_intents/${id}`);

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
    // A Visa merchant-initiated hold (the new intent is off-session) lasts 4 days 18 hours.
    const lasts = Date.parse(newEnd) - Date.parse(renewed.reauthorizations[0]?.at ?? '');
    expect(Math.abs(lasts - (4 * DAY_MS + 18 * HOUR_MS))).toBeLessThan(60_000);
    expect(await intentAtStripe(intent.id)).toMatchObject({ status: 'canceled' });
  });

  it('whose end a test moves an hour and seconds away is voided by its policy before it ends', async () => {
    const intent = await heldIntent({});
    const endsAt = Math.floor(Date.now() / 1000) + 3604;
    await postJson(`${stack.sandbox.url}/sandbox/payment_intents/${intent}/capture_before`, {
      capture_before: endsAt,
    });
    const started = await stack.api.post('/v1/lifecycles', {
      authorizationId: intent,
      reauthorizeAfter: '10 days',
    });
    expect(started.status).toBe(201);
    const ended = await firstTimerRun(() => stack.state(intent), 'the expiry policy to run');
    expect(ended).toMatchObject({ status: 'VOIDED', expirationTime: new Date(endsAt * 1000).toISOString() });
    expect(ended.ledger.timerRuns).toEqual([
      timerRun({
        timer: 'expiryPolicy',
        why: `an hour before the hold ends at ${new Date(endsAt * 1000).toISOString()}`,
        outcome: 'voided',
        reference: intent,
      }),
    ]);
    expect(await intentAtStripe(intent)).toMatchObject({ status: 'canceled' });
  });

  it('asked for an extended authorization is renewed by one of 30 days where the card allows it', async () => {
    // The card allows extended authorizations; the checkout's hold is a plain one a day and seconds long.
    const intent = await heldIntent({ extended: true });
    await postJson(`${stack.sandbox.url}/sandbox/payment_intents/${intent}/capture_before`, {
      capture_before: Math.floor((Date.now() + DAY_MS) / 1000) + 2,
    });
    const started = await stack.api.post('/v1/lifecycles', {
      authorizationId: intent,
      extendedAuthorization: true,
    });
    expect(started.status).toBe(201);
    expect(started.data.state).toMatchObject({ extendedAuthorization: true });
    const renewed = await firstTimerRun(() => stack.state(intent), 'the timer to reauthorize the hold');
    expect(renewed.ledger.timerRuns?.[0]).toMatchObject({ timer: 'reauthorize', outcome: 'reauthorized' });
    const lasts =
      Date.parse(renewed.expirationTime ?? '') - Date.parse(renewed.reauthorizations[0]?.at ?? '');
    expect(Math.abs(lasts - 30 * DAY_MS)).toBeLessThan(60_000);
    const { latest_charge: chargeId } = await atStripe(`payment_intents/${renewed.currentAuthorizationId}`);
    const charge = (await atStripe(`charges/${String(chargeId)}`)) as {
      payment_method_details: { card: { extended_authorization: { status: string } } };
    };
    expect(charge.payment_method_details.card.extended_authorization.status).toBe('enabled');
  });
});
