import { postJson } from '../../bench/provider-sandboxes';
import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { eventually } from '../helpers/eventually';
import { freshKey } from '../helpers/lifecycle-stack';
import { stripeFixture } from '../helpers/provider-fixtures';
import { useProviderStack } from '../helpers/provider-stack';

// Money that comes back, through the API, a worker and the sandbox in Stripe mode: a dispute withdraws the
// capture's funds, and the merchant's win reinstates them; the lifecycle's ledger, in GET, says both.

describe('a Stripe dispute the merchant wins', () => {
  const stack = useProviderStack(stripeFixture);

  function waitFor(authorizationId: string, done: (state: LifecycleState) => boolean, what: string) {
    return eventually(() => stack.state(authorizationId), done, { what });
  }

  it('moves the capture and the lifecycle back to CAPTURED, with nothing given back', async () => {
    const authorizationId = await stack.startLifecycle('45.00');
    const capture = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
    expect(capture.status).toBe(200);
    const captureId = capture.data.id as string;
    const disputeId = await stripeFixture.chargeback(stack.sandbox, captureId);
    await waitFor(authorizationId, (s) => s.status === 'REVERSED', 'the dispute to withdraw the funds');

    await postJson(`${stack.sandbox.url}/sandbox/disputes/${disputeId}/close`, { outcome: 'won' });
    const state = await waitFor(
      authorizationId,
      (s) => s.status === 'CAPTURED',
      'the won dispute to reinstate the funds',
    );
    expect(state).toMatchObject({ capturedAmount: '45.00', refundedAmount: '0.00' });
    expect(state.captures[0]).toMatchObject({ id: captureId, status: 'COMPLETED', refundedAmount: '0.00' });
    expect(state.ledger.movements).toEqual([
      expect.objectContaining({
        kind: 'hold',
        reference: authorizationId,
        minorUnits: '4500',
        source: 'read',
      }),
      expect.objectContaining({
        kind: 'capture',
        reference: captureId,
        minorUnits: '4500',
        source: 'answer',
      }),
      expect.objectContaining({
        kind: 'release',
        reference: captureId,
        reason: 'final-capture',
        minorUnits: '0',
      }),
      expect.objectContaining({
        kind: 'dispute-withdrawn',
        reference: disputeId,
        of: captureId,
        source: 'event',
      }),
      expect.objectContaining({
        kind: 'dispute-reinstated',
        reference: disputeId,
        of: captureId,
        source: 'event',
      }),
    ]);
    expect(state.ledger.discrepancies).toEqual([]);
  });
});
