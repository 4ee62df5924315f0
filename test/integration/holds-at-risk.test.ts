import pino from 'pino';
import { Registry } from 'prom-client';
import { postJson } from '../../bench/provider-sandboxes';
import { holdsEndingQuery, recordHoldsEnding } from '../../src/api/holds-metric';
import { lifecycleWorkflowId } from '../../src/workflows/lifecycle/definitions';
import { HoldEndActionKey, HoldEndsAtKey } from '../../src/workflows/search-attributes';
import { eventually } from '../helpers/eventually';
import { freshKey } from '../helpers/lifecycle-stack';
import { providerFixtures, stripeFixture } from '../helpers/provider-fixtures';
import { useProviderStack } from '../helpers/provider-stack';

// The holds about to end, in front of operators: the HoldEndsAt and HoldEndAction search attributes a lifecycle
// shows, the Web UI's query for them, and the API's payment_holds_ending metric counted from them.

const HOUR_MS = 60 * 60 * 1000;

describe('a Stripe hold that ends before any reauthorization', () => {
  const stack = useProviderStack(stripeFixture);

  it('is shown from the start with what runs before its end, counted by the metric, and cleared once voided', async () => {
    // A hold of one day reauthorized after 3 days: its end comes first, so the expiry policy runs first.
    const intent = await postJson<{ id: string }>(`${stack.sandbox.url}/sandbox/payment_intents`, {
      amount: 5000,
      currency: 'usd',
      hold_days: 1,
    });
    const started = await stack.api.post('/v1/lifecycles', {
      authorizationId: intent.id,
      expiryPolicy: 'expire',
      reauthorizeAfter: '3 days',
    });
    expect(started.status).toBe(201);
    const endsAt = new Date(started.data.state.expirationTime as string);
    const handle = stack.client.workflow.getHandle(lifecycleWorkflowId(intent.id));
    const shown = (await handle.describe()).typedSearchAttributes;
    expect(shown.get(HoldEndsAtKey)).toEqual(endsAt);
    expect(shown.get(HoldEndActionKey)).toBe('expire');

    const within24h = `${holdsEndingQuery('stripe', 'expire', new Date(Date.now() + 24 * HOUR_MS))} AND AuthorizationId = "${intent.id}"`;
    await eventually(
      async () => (await stack.client.workflow.count(within24h)).count,
      (count) => count === 1,
      { what: 'the hold in the Web UI query of holds ending within 24 hours' },
    );
    const registry = new Registry();
    recordHoldsEnding(registry, stack.client, ['stripe'], pino({ level: 'silent' }));
    const exposition = await registry.metrics();
    const series =
      /payment_holds_ending\{namespace="default",provider="stripe",action="expire",within="24h"\} (\d+)/;
    expect(Number(series.exec(exposition)?.[1])).toBeGreaterThanOrEqual(1);

    expect((await stack.api.post(`/v1/lifecycles/${intent.id}/void`, {}, freshKey())).status).toBe(200);
    const cleared = (await handle.describe()).typedSearchAttributes;
    expect(cleared.get(HoldEndsAtKey)).toBeUndefined();
    expect(cleared.get(HoldEndActionKey)).toBeUndefined();
  });
});

describe.each(providerFixtures)('a hold reauthorized well before its end ($name)', (fixture) => {
  const stack = useProviderStack(fixture);

  it('is not shown at the start (no upsert of its own), then with the first change the lifecycle shows', async () => {
    // PayPal's reauthorization comes when its honor period ends, 26 days before the hold's; Stripe's a day
    // before the hold ends, unless the start says when.
    const authorizationId = await stack.startLifecycle(
      '100.00',
      { reauthorizeAfter: '3 days' },
      { severalCaptures: true },
    );
    const handle = stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId));
    const upserts = async () =>
      (await handle.fetchHistory()).events?.filter(
        (event) => event.upsertWorkflowSearchAttributesEventAttributes,
      ).length;
    expect(await upserts()).toBe(0);
    expect((await handle.describe()).typedSearchAttributes.get(HoldEndsAtKey)).toBeUndefined();

    const capture = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount: '30.00', finalCapture: false },
      freshKey(),
    );
    expect(capture.status).toBe(200);
    const state = await stack.state(authorizationId);
    const shown = (await handle.describe()).typedSearchAttributes;
    expect(shown.get(HoldEndsAtKey)).toEqual(new Date(state.expirationTime as string));
    expect(shown.get(HoldEndActionKey)).toBe('reauthorize');
    expect(await upserts()).toBe(1);
  });
});

describe('a Stripe hold reauthorized a day before its end (the default)', () => {
  const stack = useProviderStack(stripeFixture);

  it('is shown from the start, with the reauthorization as what runs before its end', async () => {
    const authorizationId = await stack.startLifecycle('100.00');
    const state = await stack.state(authorizationId);
    const endsAt = Date.parse(state.expirationTime as string);
    expect(Date.parse(state.reauthorizeAt as string)).toBe(endsAt - 24 * HOUR_MS);
    const shown = (await stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId)).describe())
      .typedSearchAttributes;
    expect(shown.get(HoldEndsAtKey)).toEqual(new Date(endsAt));
    expect(shown.get(HoldEndActionKey)).toBe('reauthorize');
  });
});
