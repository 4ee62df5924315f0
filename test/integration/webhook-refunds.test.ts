import { randomUUID } from 'node:crypto';
import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { lifecycleWorkflowId } from '../../src/workflows/lifecycle/definitions';
import { eventually } from '../helpers/eventually';
import { freshKey } from '../helpers/lifecycle-stack';
import { providerFixtures } from '../helpers/provider-fixtures';
import { useProviderStack } from '../helpers/provider-stack';

// What happens at the provider outside the lifecycle (a capture or a refund in the merchant's dashboard, a
// chargeback by the payer's bank) reaches the lifecycle only as the provider's signed events, delivered over
// HTTP to the API's intake for that provider and verified; once per provider (test/helpers/provider-fixtures.ts).

const usd = (value: string) => ({ currency_code: 'USD', value });

describe.each(providerFixtures)('$name events of captures, refunds and chargebacks', (fixture) => {
  const stack = useProviderStack(fixture);

  async function capturedLifecycle(value: string): Promise<{ authorizationId: string; captureId: string }> {
    const authorizationId = await stack.startLifecycle(value);
    const capture = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
    expect(capture.status).toBe(200);
    return { authorizationId, captureId: capture.data.id as string };
  }

  function waitFor(authorizationId: string, done: (state: LifecycleState) => boolean, what: string) {
    return eventually(() => stack.state(authorizationId), done, { what });
  }

  it('applies a capture made in the dashboard from its event', async () => {
    const authorizationId = await stack.startLifecycle('30.00');
    const capture = await stack.dashboard.captureAuthorization({
      authorizationId,
      amount: usd('30.00'),
      finalCapture: true,
      idempotencyKey: `dashboard-${randomUUID()}`,
    });
    const state = await waitFor(authorizationId, (s) => s.status === 'CAPTURED', 'the capture to be applied');
    expect(state.captures).toEqual([expect.objectContaining({ id: capture.id, amount: usd('30.00') })]);
    expect(state.recentEvents).toContainEqual(
      expect.objectContaining({
        eventType: 'capture.completed',
        captureId: capture.id,
        applied: true,
      }),
    );
  });

  it('records a refund made in the dashboard from its event', async () => {
    const { authorizationId, captureId } = await capturedLifecycle('80.00');
    const refund = await stack.dashboard.refundCapture({
      captureId,
      amount: usd('20.00'),
      idempotencyKey: `dashboard-${randomUUID()}`,
    });
    const state = await waitFor(
      authorizationId,
      (s) => s.status === 'PARTIALLY_REFUNDED',
      'the lifecycle to record the refund',
    );
    expect(state.captures[0]).toMatchObject({
      id: captureId,
      status: 'PARTIALLY_REFUNDED',
      refundedAmount: '20.00',
    });
    expect(state.refunds).toEqual([
      expect.objectContaining({ id: refund.id, captureId, kind: 'refund', amount: usd('20.00') }),
    ]);
    expect(state.recentEvents).toContainEqual(
      expect.objectContaining({ eventType: 'capture.refunded', captureId, applied: true }),
    );
  });

  it('records the event of a refund the lifecycle made once, without counting it twice', async () => {
    const { authorizationId, captureId } = await capturedLifecycle('30.00');
    const refund = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/captures/${captureId}/refund`,
      {},
      freshKey(),
    );
    expect(refund.status).toBe(200);
    const state = await waitFor(
      authorizationId,
      (s) => s.recentEvents.some((event) => event.eventType === 'capture.refunded'),
      'the refund event',
    );
    expect(state).toMatchObject({ status: 'REFUNDED', refundedAmount: '30.00' });
    expect(state.refunds).toEqual([expect.objectContaining({ id: refund.data.id })]);
    expect(state.recentEvents.filter((event) => event.eventType === 'capture.refunded')).not.toContainEqual(
      expect.objectContaining({ applied: true }),
    );
    expect(await fixture.refunded(stack.sandbox, captureId)).toBe('30.00');
  });

  it('marks the capture and the lifecycle REVERSED on a chargeback', async () => {
    const { authorizationId, captureId } = await capturedLifecycle('45.00');
    const reversalId = await fixture.chargeback(stack.sandbox, captureId);
    const state = await waitFor(
      authorizationId,
      (s) => s.status === 'REVERSED',
      'the lifecycle to record the reversal',
    );
    expect(state.captures[0]).toMatchObject({ status: 'REVERSED', refundedAmount: '45.00' });
    expect(state.refunds).toEqual([
      expect.objectContaining({ id: reversalId, captureId, kind: 'reversal', amount: usd('45.00') }),
    ]);
    const { searchAttributes } = await stack.client.workflow
      .getHandle(lifecycleWorkflowId(authorizationId))
      .describe();
    expect(searchAttributes.PaymentStatus).toEqual(['REVERSED']);
  });
});
