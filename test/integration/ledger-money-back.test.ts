import { postJson } from '../../bench/provider-sandboxes';
import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { eventually } from '../helpers/eventually';
import { freshKey } from '../helpers/lifecycle-stack';
import { providerFixtures, stripeFixture } from '../helpers/provider-fixtures';
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

  it('lets the capture be refunded once the funds are back, as Stripe does; not while the dispute is open', async () => {
    const authorizationId = await stack.startLifecycle('40.00');
    const capture = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
    const captureId = capture.data.id as string;
    const refund = () =>
      stack.api.post(`/v1/lifecycles/${authorizationId}/captures/${captureId}/refund`, {}, freshKey());
    const disputeId = await stripeFixture.chargeback(stack.sandbox, captureId);
    await waitFor(authorizationId, (s) => s.status === 'REVERSED', 'the dispute to withdraw the funds');
    // While the dispute is open the lifecycle refuses before Stripe (which would answer charge_disputed).
    expect(await refund()).toMatchObject({
      status: 409,
      data: { error: { code: 'LIFECYCLE_STATE_FORBIDS' } },
    });

    await postJson(`${stack.sandbox.url}/sandbox/disputes/${disputeId}/close`, { outcome: 'won' });
    await waitFor(authorizationId, (s) => s.status === 'CAPTURED', 'the won dispute to reinstate the funds');
    const refunded = await refund();
    expect(refunded.status).toBe(200);
    const state = await stack.state(authorizationId);
    expect(state).toMatchObject({ status: 'REFUNDED', refundedAmount: '40.00' });
    expect(state.captures[0]).toMatchObject({ id: captureId, status: 'REFUNDED', refundedAmount: '40.00' });
    expect(await stripeFixture.refunded(stack.sandbox, captureId)).toBe('40.00');
    expect(state.ledger.discrepancies).toEqual([]);
  });

  it('keeps every capture of a disputed multicapture charge from refunds until the dispute is won', async () => {
    const authorizationId = await stack.startLifecycle('100.00', {}, { severalCaptures: true });
    const capture = async (amount: string) => {
      const answer = await stack.api.post(
        `/v1/lifecycles/${authorizationId}/capture`,
        { amount },
        freshKey(),
      );
      expect(answer.status).toBe(200);
      return answer.data.id as string;
    };
    const refund = (captureId: string) =>
      stack.api.post(`/v1/lifecycles/${authorizationId}/captures/${captureId}/refund`, {}, freshKey());
    const [first, second] = [await capture('30.00'), await capture('40.00')];
    const answered = await stack.api.get(`/v1/lifecycles/${authorizationId}`);
    const chargeIds = (answered.data as LifecycleState).captures.map(
      (each) => (each as { chargeId?: string }).chargeId,
    );
    const chargeId = second.slice(0, second.lastIndexOf('-'));
    expect(chargeIds).toEqual([chargeId, chargeId]);
    const refunded = await refund(second);
    expect(refunded.status).toBe(200);
    // The dispute is of what the charge has not had refunded (30.00): it falls on the first capture.
    const disputeId = await stripeFixture.chargeback(stack.sandbox, chargeId);
    const statusOf = (state: LifecycleState, captureId: string) =>
      state.captures.find((each) => each.id === captureId)?.status;
    await waitFor(
      authorizationId,
      (s) => statusOf(s, first) === 'REVERSED',
      'the dispute to withdraw the funds',
    );
    await postJson(`${stack.sandbox.url}/sandbox/refunds/${refunded.data.id as string}/fail`, {});
    const failed = await waitFor(
      authorizationId,
      (s) => statusOf(s, second) === 'COMPLETED',
      'the failed refund to give the second capture its money back',
    );
    expect(failed.captures.map((each) => [each.id, each.status])).toEqual([
      [first, 'REVERSED'],
      [second, 'COMPLETED'],
    ]);

    // Stripe refuses any refund of the charge while its dispute is lost or open (charge_disputed).
    const refused = await refund(second);
    expect(refused).toMatchObject({ status: 409, data: { error: { code: 'LIFECYCLE_STATE_FORBIDS' } } });
    expect(refused.data.error.message).toContain(`whose dispute ${disputeId} withdrew funds`);

    await postJson(`${stack.sandbox.url}/sandbox/disputes/${disputeId}/close`, { outcome: 'won' });
    await waitFor(
      authorizationId,
      (s) => statusOf(s, first) === 'COMPLETED',
      'the won dispute to reinstate the funds',
    );
    expect((await refund(second)).status).toBe(200);
    expect(await stripeFixture.refunded(stack.sandbox, chargeId)).toBe('40.00');
    expect((await stack.state(authorizationId)).ledger.discrepancies).toEqual([]);
  });
});

// A refund that fails at the provider (the payer's card or account closed) and, on PayPal, one canceled: the
// sandbox gives the amount back to the capture and delivers the refund in its new status.
describe.each(providerFixtures)('a refund that comes back ($name)', (fixture) => {
  const stack = useProviderStack(fixture);

  function waitFor(authorizationId: string, done: (state: LifecycleState) => boolean, what: string) {
    return eventually(() => stack.state(authorizationId), done, { what });
  }

  async function refund(authorizationId: string, captureId: string, amount?: string): Promise<string> {
    const path = `/v1/lifecycles/${authorizationId}/captures/${captureId}/refund`;
    const answer = await stack.api.post(path, amount ? { amount } : {}, freshKey());
    expect(answer.status).toBe(200);
    return answer.data.id as string;
  }

  it('moves the capture and the lifecycle back, and the capture can be refunded again', async () => {
    const authorizationId = await stack.startLifecycle('45.00');
    const capture = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
    expect(capture.status).toBe(200);
    const captureId = capture.data.id as string;
    const first = await refund(authorizationId, captureId, '20.00');
    const rest = await refund(authorizationId, captureId);
    expect(await stack.state(authorizationId)).toMatchObject({ status: 'REFUNDED', refundedAmount: '45.00' });

    await postJson(`${stack.sandbox.url}/sandbox/refunds/${rest}/fail`, {});
    const failed = await waitFor(
      authorizationId,
      (s) => s.status === 'PARTIALLY_REFUNDED',
      'the failed refund to come back',
    );
    expect(failed).toMatchObject({ capturedAmount: '45.00', refundedAmount: '20.00' });
    expect(failed.captures[0]).toMatchObject({ status: 'PARTIALLY_REFUNDED', refundedAmount: '20.00' });

    // PayPal's refunds are CANCELLED too; Stripe's sandbox refunds succeed at once, so none is pending to cancel.
    const second = fixture.name === 'paypal' ? 'cancel' : 'fail';
    await postJson(`${stack.sandbox.url}/sandbox/refunds/${first}/${second}`, {});
    const back = await waitFor(
      authorizationId,
      (s) => s.status === 'CAPTURED',
      'the second refund to come back',
    );
    expect(back).toMatchObject({ capturedAmount: '45.00', refundedAmount: '0.00' });
    expect(back.captures[0]).toMatchObject({ id: captureId, status: 'COMPLETED', refundedAmount: '0.00' });
    expect(back.ledger.movements.filter((movement) => movement.kind === 'refund-returned')).toEqual([
      expect.objectContaining({ reference: rest, of: rest, minorUnits: '2500', source: 'event' }),
      expect.objectContaining({ reference: first, of: first, minorUnits: '2000', source: 'event' }),
    ]);
    expect(back.ledger.discrepancies).toEqual([]);

    const again = await refund(authorizationId, captureId);
    const refunded = await stack.state(authorizationId);
    expect(refunded).toMatchObject({ status: 'REFUNDED', refundedAmount: '45.00' });
    expect(refunded.captures[0]).toMatchObject({ status: 'REFUNDED', refundedAmount: '45.00' });
    expect(again).not.toBe(rest);
    expect(await fixture.refunded(stack.sandbox, captureId)).toBe(
      fixture.name === 'paypal' ? '90.00' : '45.00',
    );
  });
});

describe('a Stripe dispute inquiry', () => {
  const stack = useProviderStack(stripeFixture);

  it('is recorded without withdrawing funds, opened and closed', async () => {
    const authorizationId = await stack.startLifecycle('30.00');
    const capture = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
    const captureId = capture.data.id as string;
    const inquiry = await postJson<{ id: string; status: string }>(
      `${stack.sandbox.url}/sandbox/charges/${captureId}/dispute`,
      { inquiry: true },
    );
    expect(inquiry.status).toBe('warning_needs_response');
    const inquired = await eventually(
      () => stack.state(authorizationId),
      (s) => s.ledger.movements.some((movement) => movement.kind === 'dispute-inquiry'),
      { what: 'the inquiry to be recorded' },
    );
    expect(inquired).toMatchObject({ status: 'CAPTURED', capturedAmount: '30.00' });
    expect(inquired.captures[0]).toMatchObject({ status: 'COMPLETED' });

    const closed = await postJson<{ status: string }>(
      `${stack.sandbox.url}/sandbox/disputes/${inquiry.id}/close`,
      { outcome: 'lost' },
    );
    expect(closed.status).toBe('warning_closed');
    await stack.sandbox.deliveriesSettled();
    // A refund is still possible: an inquiry does not charge the payment back.
    const refund = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/captures/${captureId}/refund`,
      {},
      freshKey(),
    );
    expect(refund.status).toBe(200);
    const state = await stack.state(authorizationId);
    expect(state).toMatchObject({ status: 'REFUNDED', refundedAmount: '30.00' });
    expect(state.ledger.movements.map((movement) => movement.kind)).not.toContain('dispute-withdrawn');
    expect(state.ledger.discrepancies).toEqual([]);
  });
});
