import { randomUUID } from 'node:crypto';
import { createProviderActivities } from '../../src/activities/payments';
import { formatMinorUnits, toMinorUnits } from '../../src/currency-decimals';
import { sandboxPaymentsClient, useLifecycleStack } from '../helpers/lifecycle-stack';
import {
  lifecycleWorkflowId,
  paymentEventSignal,
  stateQuery,
} from '../../src/workflows/lifecycle/definitions';

// The lifecycle's money invariants over the real API, the dev server and the sandbox (docs/lifecycle.md,
// "Money invariants"). The worker's provider declares a bound of 3 captures per authorization and, for the
// authorizations in `tellsCaptured`, says what was captured of them, as an adapter whose provider tells does.

const tellsCaptured = new Set<string>();

const stack = useLifecycleStack({
  worker: (taskQueue, payments) => ({
    taskQueue,
    activities: createProviderActivities({
      ...payments,
      capabilities: { ...payments.capabilities, maxCaptures: 3 },
      async getAuthorization(authorizationId) {
        const authorization = await payments.getAuthorization(authorizationId);
        if (!tellsCaptured.has(authorizationId)) return authorization;
        const captured = (await stack.capturesAtProvider(authorizationId)).reduce(
          (sum, each) => sum + (toMinorUnits(each.amount.value, 'USD') ?? 0n),
          0n,
        );
        return {
          ...authorization,
          captured_amount: { currency_code: 'USD', value: formatMinorUnits(captured, 'USD') },
        };
      },
    }),
  }),
});

/** An authorization of `value` USD of which `captured` was captured before any lifecycle managed it. */
async function partlyCaptured(value: string, captured: string): Promise<string> {
  const authorization = await stack.createAuthorization(value);
  await sandboxPaymentsClient(stack.sandbox).captureAuthorization(
    authorization.id,
    { amount: { currency_code: 'USD', value: captured }, final_capture: false },
    `before-${randomUUID()}`,
  );
  return authorization.id;
}

function start(authorizationId: string) {
  return stack.api.post(
    '/v1/lifecycles',
    { authorizationId },
    { headers: { 'idempotency-key': randomUUID() } },
  );
}

function capture(authorizationId: string, body: Record<string, unknown>) {
  return stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, body, {
    headers: { 'idempotency-key': randomUUID() },
  });
}

describe('captures of one lifecycle', () => {
  it("stop at the provider's bound with a 409 naming it, before the provider is called", async () => {
    const authorizationId = await stack.startLifecycle('100.00');
    for (let n = 0; n < 3; n++)
      expect((await capture(authorizationId, { amount: '10.00' })).status).toBe(200);
    const refused = await capture(authorizationId, { amount: '10.00' });
    expect(refused.status).toBe(409);
    expect(refused.data.error).toMatchObject({ code: 'LIFECYCLE_STATE_FORBIDS' });
    expect(refused.data.error.message).toContain('maxCaptures 3');
    expect(await stack.capturesAtProvider(authorizationId)).toHaveLength(3);
  });
});

describe('an amount in another currency', () => {
  it('reported by the provider is recorded with a note, never booked: JPY 50 on a USD lifecycle', async () => {
    const authorizationId = await stack.startLifecycle('100.00');
    const handle = stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId));
    await handle.signal(paymentEventSignal, {
      id: `WH-${randomUUID()}`,
      eventType: 'capture.completed',
      authorizationId,
      captureId: `C-${randomUUID()}`,
      amount: { currency_code: 'JPY', value: '50' },
    });
    const state = await handle.query(stateQuery);
    expect(state).toMatchObject({ status: 'AUTHORIZED', capturedAmount: '0.00', remainingAmount: '100.00' });
    expect(state?.recentEvents).toEqual([
      expect.objectContaining({ applied: false, note: "amount in JPY, not the lifecycle's USD: not booked" }),
    ]);
    // All 100.00 can still be captured.
    expect((await capture(authorizationId, {})).data.amount).toEqual({
      currency_code: 'USD',
      value: '100.00',
    });
  });
});

describe('a partly captured authorization', () => {
  it('is refused with 409 when its provider does not say how much was captured (PayPal)', async () => {
    const authorizationId = await partlyCaptured('100.00', '30.00');
    const refused = await start(authorizationId);
    expect(refused.status).toBe(409);
    expect(refused.data.error.code).toBe('AUTHORIZATION_NOT_MANAGEABLE');
    expect(refused.data.error.message).toContain('does not say how much was captured');
  });

  it('is adopted with what remains when its provider says what was captured', async () => {
    const authorizationId = await partlyCaptured('100.00', '30.00');
    tellsCaptured.add(authorizationId);
    expect((await start(authorizationId)).status).toBe(201);
    const state = await stack.client.workflow
      .getHandle(lifecycleWorkflowId(authorizationId))
      .query(stateQuery);
    expect(state).toMatchObject({
      status: 'PARTIALLY_CAPTURED',
      capturedAmount: '30.00',
      remainingAmount: '70.00',
    });
    const rest = await capture(authorizationId, {});
    expect(rest.status).toBe(200);
    expect(rest.data.amount).toEqual({ currency_code: 'USD', value: '70.00' });
    expect((await stack.capturesAtProvider(authorizationId)).map((each) => each.amount.value)).toEqual([
      '30.00',
      '70.00',
    ]);
  });
});
