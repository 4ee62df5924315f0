import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { eventually } from '../helpers/eventually';
import { freshKey } from '../helpers/lifecycle-stack';
import { providerFixtures } from '../helpers/provider-fixtures';
import { useProviderStack } from '../helpers/provider-stack';

// The expiry policy `capture`, through the API, a worker and the sandbox: before the hold ends, the lifecycle
// captures what remains of it, as its last capture.

describe.each(providerFixtures)('a lifecycle whose expiry policy captures ($name)', (fixture) => {
  const stack = useProviderStack(fixture);

  it('captures what remains when its policy runs, once', async () => {
    // The policy runs 10 seconds after the authorization was made, long before a reauthorization.
    const authorizationId = await stack.startLifecycle(
      '100.00',
      { expiryPolicy: 'capture', expiryPolicyAfter: '10 seconds' },
      { severalCaptures: true },
    );
    const first = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount: '30.00', finalCapture: false },
      freshKey(),
    );
    expect(first.status).toBe(200);
    expect(await stack.state(authorizationId)).toMatchObject({
      status: 'PARTIALLY_CAPTURED',
      expiryPolicy: 'capture',
      nextTimer: { kind: 'expiryPolicy' },
    });

    const captured: LifecycleState = await eventually(
      () => stack.state(authorizationId),
      (state) => state.status === 'CAPTURED',
      { what: 'the expiry policy to capture what remains', timeoutMs: 40_000 },
    );
    expect(captured).toMatchObject({ capturedAmount: '100.00', remainingAmount: '0.00' });
    expect(captured.captures.map((capture) => capture.amount.value)).toEqual(['30.00', '70.00']);
    expect(captured.captures[1]).toMatchObject({ finalCapture: true });
    expect(captured.ledger.timerRuns).toEqual([
      {
        timer: 'expiryPolicy',
        at: expect.any(String),
        why: 'expiryPolicyAfter: 10 seconds after the authorization',
        outcome: 'captured',
        reference: expect.any(String),
      },
    ]);
    expect((await fixture.captured(stack.sandbox, authorizationId)).total).toBe('100.00');
    await stack.sandbox.deliveriesSettled();
    expect((await stack.state(authorizationId)).ledger.discrepancies).toEqual([]);
  });
});
