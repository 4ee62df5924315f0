import axios from 'axios';
import { postJson } from '../../bench/provider-sandboxes';
import { LifecycleClosedError } from '../../src/client/lifecycle-client';
import { apiKeyHash, clearKeyCaller } from '../../src/api-callers';
import {
  lifecycleWorkflowId,
  paymentEventSignal,
  type LifecycleState,
} from '../../src/workflows/lifecycle/definitions';
import { LedgerDiscrepanciesKey } from '../../src/workflows/search-attributes';
import { eventually } from '../helpers/eventually';
import { API_KEY, freshKey } from '../helpers/lifecycle-stack';
import { paypalFixture, providerFixtures, stripeFixture } from '../helpers/provider-fixtures';
import { pendingCapture, settleAtBank } from '../helpers/pending-capture';
import { startProviderStack, type ProviderStack } from '../helpers/provider-stack';

// Reconciliation through the real API, a worker and the sandbox, with no webhook subscription: the provider's
// events never reach the lifecycle, so what it books of the provider's changes it books by reading them.

const SHOP_KEY = 'reconcile-shop-key';
const callers = [
  clearKeyCaller([API_KEY]),
  { id: 'shop', scopes: ['lifecycles:read', 'lifecycles:write'] as const, keyHashes: [apiKeyHash(SHOP_KEY)] },
].map((caller) => ({ ...caller, scopes: [...caller.scopes] }));

function useStackWithoutEvents(fixture: (typeof providerFixtures)[number]): ProviderStack {
  const stack = {} as ProviderStack;
  beforeAll(async () => {
    Object.assign(stack, await startProviderStack(fixture, { callers }, { subscribe: false }));
  });
  afterAll(() => stack.close());
  return stack;
}

type Summary = {
  booked: Array<Record<string, unknown>>;
  recorded: Array<Record<string, unknown>>;
  discrepancies: unknown[];
};

describe.each(providerFixtures)('reconciliation at $name', (fixture) => {
  const stack = useStackWithoutEvents(fixture);

  it('books a hold the provider let expire, which no event reported, on an operator request', async () => {
    const authorizationId = await stack.startLifecycle('30.00');
    await fixture.expire(stack.sandbox, authorizationId);
    expect((await stack.state(authorizationId)).status).toBe('AUTHORIZED');

    const response = await stack.api.post(`/v1/lifecycles/${authorizationId}/reconcile`, {});
    expect(response.status).toBe(200);
    const summary = response.data as Summary;
    expect(summary.booked).toEqual([
      expect.objectContaining({ kind: 'release', reason: 'expiry', minorUnits: '3000', source: 'read' }),
    ]);
    expect(summary.discrepancies).toEqual([]);
    const state = await stack.state(authorizationId);
    expect(state).toMatchObject({ status: 'EXPIRED', remainingAmount: '0.00' });
    expect(state.lastReconciliation).toMatchObject({ reason: 'request', booked: 1, recorded: 0 });

    // A second reconciliation finds the same and books nothing again.
    const again = await stack.api.post(`/v1/lifecycles/${authorizationId}/reconcile`, {});
    expect((again.data as Summary).booked).toEqual([]);
  });

  it('books nothing and records nothing when the ledger already holds what the provider holds', async () => {
    const authorizationId = await stack.startLifecycle('80.00', {}, { severalCaptures: true });
    const captureIds: string[] = [];
    for (const amount of ['30.00', '20.00']) {
      const capture = await stack.api.post(
        `/v1/lifecycles/${authorizationId}/capture`,
        { amount, finalCapture: false },
        freshKey(),
      );
      expect(capture.status).toBe(200);
      captureIds.push(capture.data.id as string);
    }
    const refund = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/captures/${captureIds[0]}/refund`,
      { amount: '10.00' },
      freshKey(),
    );
    expect(refund.status).toBe(200);

    const response = await stack.api.post(`/v1/lifecycles/${authorizationId}/reconcile`, {});
    expect(response.status).toBe(200);
    expect(response.data).toMatchObject({ booked: [], recorded: [], discrepancies: [] });
    expect(await stack.state(authorizationId)).toMatchObject({
      capturedAmount: '50.00',
      remainingAmount: '30.00',
      refundedAmount: '10.00',
    });
  });

  it('answers 409 LIFECYCLE_CLOSED to a reconcile of a lifecycle whose run completed', async () => {
    const authorizationId = await stack.startLifecycle('15.00', { lateEventWindow: '0 seconds' });
    const capture = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
    expect(capture.status).toBe(200);
    await stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId)).result();

    const response = await stack.api.post(`/v1/lifecycles/${authorizationId}/reconcile`, {});
    expect(response.status).toBe(409);
    expect(response.data.error).toMatchObject({
      code: 'LIFECYCLE_CLOSED',
      message: expect.stringMatching(/has closed \(CAPTURED\).*cannot read its provider/),
    });
    await expect(stack.lifecycles.reconcile(authorizationId)).rejects.toBeInstanceOf(LifecycleClosedError);
  });

  it('answers 409 LIFECYCLE_CLOSED to a reconcile of a lifecycle terminated from outside', async () => {
    const authorizationId = await stack.startLifecycle('16.00');
    await stack.client.workflow
      .getHandle(lifecycleWorkflowId(authorizationId))
      .terminate('an operator ended it');

    const response = await stack.api.post(`/v1/lifecycles/${authorizationId}/reconcile`, {});
    expect(response.status).toBe(409);
    expect(response.data.error).toMatchObject({
      code: 'LIFECYCLE_CLOSED',
      message: expect.stringContaining('TERMINATED'),
    });
    await expect(stack.lifecycles.reconcile(authorizationId)).rejects.toBeInstanceOf(LifecycleClosedError);
  });

  it('refuses a caller without the admin scope, naming it', async () => {
    const authorizationId = await stack.startLifecycle('12.00');
    const shop = axios.create({
      baseURL: stack.apiUrl,
      headers: { authorization: `Bearer ${SHOP_KEY}` },
      validateStatus: () => true,
    });
    const response = await shop.post(`/v1/lifecycles/${authorizationId}/reconcile`, {});
    expect(response.status).toBe(403);
    expect(JSON.stringify(response.data)).toContain('admin');
  });

  it('records what the ledger holds and the provider does not as a discrepancy operators can find', async () => {
    const authorizationId = await stack.startLifecycle('25.00');
    const capture = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
    expect(capture.status).toBe(200);
    const captureId = capture.data.id as string;
    // An event of a refund the provider does not hold (a mistaken or forged one): the ledger books it.
    const ghost = fixture.name === 'stripe' ? 're_ghost0000000000' : 'GHOSTREFUND00000';
    await stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId)).signal(paymentEventSignal, {
      id: `evt-${ghost}-${authorizationId}`,
      eventType: 'capture.refunded',
      captureId,
      refundId: ghost,
      movement: 'refund',
      status: 'COMPLETED',
      amount: { currency_code: 'USD', value: '5.00' },
    });
    await eventually(
      () => stack.state(authorizationId),
      (state: LifecycleState) => state.refundedAmount === '5.00',
      { what: 'the event to book the refund' },
    );

    const response = await stack.api.post(`/v1/lifecycles/${authorizationId}/reconcile`, {});
    expect(response.status).toBe(200);
    const summary = response.data as Summary;
    expect(summary.recorded).toEqual([
      expect.objectContaining({
        movement: expect.objectContaining({ kind: 'refund', reference: ghost, source: 'read' }),
        invariant: expect.stringContaining(`does not hold refund ${ghost}`),
      }),
    ]);
    const state = await stack.state(authorizationId);
    expect(state.ledger.discrepancies).toHaveLength(1);
    const handle = stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId));
    await eventually(
      async () => (await handle.describe()).typedSearchAttributes.get(LedgerDiscrepanciesKey),
      (count) => count === 1,
      { what: 'the LedgerDiscrepancies search attribute' },
    );
  });
});

describe('reconciliation at stripe, of refunds no event reported', () => {
  const stack = useStackWithoutEvents(stripeFixture);

  async function capturedLifecycle(value: string, body: Record<string, unknown> = {}) {
    const authorizationId = await stack.startLifecycle(value, body);
    const capture = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
    expect(capture.status).toBe(200);
    return { authorizationId, captureId: capture.data.id as string };
  }

  it('books a refund made in the dashboard, with source read, and GET shows it', async () => {
    const { authorizationId, captureId } = await capturedLifecycle('50.00');
    const refund = await stack.dashboard.refundCapture({
      captureId,
      amount: { currency_code: 'USD', value: '20.00' },
      idempotencyKey: `dashboard-${authorizationId}`,
    });

    const response = await stack.api.post(`/v1/lifecycles/${authorizationId}/reconcile`, {});
    expect(response.status).toBe(200);
    expect((response.data as Summary).booked).toEqual([
      expect.objectContaining({
        kind: 'refund',
        reference: refund.id,
        of: captureId,
        minorUnits: '2000',
        source: 'read',
      }),
    ]);
    const state = await stack.state(authorizationId);
    expect(state).toMatchObject({ status: 'PARTIALLY_REFUNDED', refundedAmount: '20.00' });
    expect(state.ledger.discrepancies).toEqual([]);
  });

  it('books a refund that failed at the provider as come back', async () => {
    const { authorizationId, captureId } = await capturedLifecycle('40.00');
    const refund = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/captures/${captureId}/refund`,
      {},
      freshKey(),
    );
    expect(refund.status).toBe(200);
    await postJson(`${stack.sandbox.url}/sandbox/refunds/${refund.data.id as string}/fail`, {});

    const response = await stack.api.post(`/v1/lifecycles/${authorizationId}/reconcile`, {});
    expect((response.data as Summary).booked).toEqual([
      expect.objectContaining({ kind: 'refund-returned', reference: refund.data.id, source: 'read' }),
    ]);
    expect(await stack.state(authorizationId)).toMatchObject({ status: 'CAPTURED', refundedAmount: '0.00' });
  });

  it.each([
    ['open', ['dispute-withdrawn']],
    ['won', ['dispute-withdrawn', 'dispute-reinstated']],
  ])(
    "books a dispute (%s) whose events never came from the charge's disputes, not as a discrepancy",
    async (outcome, kinds) => {
      const { authorizationId, captureId } = await capturedLifecycle('35.00');
      const dispute = await stripeFixture.chargeback(stack.sandbox, captureId);
      if (outcome === 'won') {
        await postJson(`${stack.sandbox.url}/sandbox/disputes/${dispute}/close`, { outcome: 'won' });
      }

      const response = await stack.api.post(`/v1/lifecycles/${authorizationId}/reconcile`, {});
      expect(response.status).toBe(200);
      const summary = response.data as Summary;
      expect(summary.recorded).toEqual([]);
      expect(summary.booked).toEqual(
        kinds.map((kind) =>
          expect.objectContaining({ kind, reference: dispute, minorUnits: '3500', source: 'read' }),
        ),
      );
      const state = await stack.state(authorizationId);
      expect(state.status).toBe(outcome === 'won' ? 'CAPTURED' : 'REVERSED');
      expect(state.ledger.discrepancies).toEqual([]);
    },
  );

  it('reconciles once as the run closes', async () => {
    const { authorizationId, captureId } = await capturedLifecycle('60.00', { lateEventWindow: '2 seconds' });
    const refund = await stack.dashboard.refundCapture({
      captureId,
      amount: { currency_code: 'USD', value: '60.00' },
      idempotencyKey: `dashboard-${authorizationId}`,
    });
    const handle = stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId));
    const result = (await handle.result()) as LifecycleState;
    expect(result).toMatchObject({ status: 'REFUNDED', refundedAmount: '60.00' });
    expect(result.lastReconciliation).toMatchObject({ reason: 'close', booked: 1, recorded: 0 });
    expect(result.ledger.movements).toContainEqual(
      expect.objectContaining({ kind: 'refund', reference: refund.id, source: 'read' }),
    );
  });
});

describe('reconciliation at paypal, of what no event reported', () => {
  const stack = useStackWithoutEvents(paypalFixture);

  it('reads its provider once when no event settled the capture within its grace period', async () => {
    const { authorizationId, captureId } = await pendingCapture(stack, '40.00', '10.00');
    const waiting = await stack.state(authorizationId);
    expect(waiting.nextTimer).toMatchObject({ kind: 'reconcile' });
    expect(waiting.awaitedEvents).toEqual([
      expect.objectContaining({ kind: 'capture', reference: captureId }),
    ]);
    // The bank settles it; the event that says so never reaches the lifecycle.
    await settleAtBank(stack, captureId);

    const read = await eventually(
      () => stack.state(authorizationId),
      (state: LifecycleState) => state.lastReconciliation?.reason === 'event-overdue',
      { what: 'the read for the overdue capture event' },
    );
    expect(read.captures).toEqual([expect.objectContaining({ id: captureId, status: 'COMPLETED' })]);
    expect(read.lastReconciliation).toMatchObject({ booked: 1, recorded: 0 });
    expect(read.awaitedEvents).toBeUndefined();
    expect(read.nextTimer).toMatchObject({ kind: 'reauthorize' });
    expect(read.ledger.discrepancies).toEqual([]);

    // Read once: the same capture is not read again.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await stack.state(authorizationId)).lastReconciliation).toEqual(read.lastReconciliation);
  });

  it('records a refund made in the dashboard, which PayPal does not list, as a discrepancy naming the capture', async () => {
    const authorizationId = await stack.startLifecycle('60.00');
    const capture = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
    expect(capture.status).toBe(200);
    const captureId = capture.data.id as string;
    await stack.dashboard.refundCapture({
      captureId,
      amount: { currency_code: 'USD', value: '25.00' },
      idempotencyKey: `dashboard-${authorizationId}`,
    });

    const response = await stack.api.post(`/v1/lifecycles/${authorizationId}/reconcile`, {});
    expect(response.status).toBe(200);
    expect((response.data as Summary).recorded).toEqual([
      expect.objectContaining({
        movement: expect.objectContaining({
          kind: 'refund',
          reference: `${captureId}/refund`,
          of: captureId,
        }),
        invariant: expect.stringContaining(`paypal says ${captureId} is refunded in part`),
      }),
    ]);
    const state = await stack.state(authorizationId);
    expect(state.status).toBe('CAPTURED');
    expect(state.refundedAmount).toBeUndefined();
    expect(state.ledger.discrepancies.filter((each) => !each.resolvedAt)).toHaveLength(1);
  });

  it('records a capture made in the dashboard, which PayPal does not list, as a discrepancy naming the authorization', async () => {
    const authorizationId = await stack.startLifecycle('60.00');
    await stack.dashboard.captureAuthorization({
      authorizationId,
      amount: { currency_code: 'USD', value: '20.00' },
      finalCapture: false,
      idempotencyKey: `dashboard-${authorizationId}`,
    });

    const response = await stack.api.post(`/v1/lifecycles/${authorizationId}/reconcile`, {});
    expect(response.status).toBe(200);
    expect((response.data as Summary).recorded).toEqual([
      expect.objectContaining({
        movement: expect.objectContaining({ kind: 'capture', of: authorizationId }),
        invariant: expect.stringContaining(`paypal says ${authorizationId} is captured in part`),
      }),
    ]);
    const state = await stack.state(authorizationId);
    expect(state.capturedAmount).toBe('0.00');
    expect(state.ledger.discrepancies.filter((each) => !each.resolvedAt)).toHaveLength(1);
  });

  it('does not await the event of a capture the provider answered COMPLETED', async () => {
    const authorizationId = await stack.startLifecycle('40.00', { eventGracePeriod: '2 seconds' });
    const capture = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount: '10.00', finalCapture: false },
      freshKey(),
    );
    expect(capture.data).toMatchObject({ status: 'COMPLETED' });
    const state = await stack.state(authorizationId);
    expect(state.awaitedEvents).toBeUndefined();
    expect(state.nextTimer).toMatchObject({ kind: 'reauthorize' });
  });
});
