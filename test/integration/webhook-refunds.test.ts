import { eventually } from '../helpers/eventually';
import { deliveredRefundEvent, startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';
import { freshKey } from '../helpers/lifecycle-stack';

// PAYMENT.CAPTURE.REFUNDED and REVERSED carry a refund whose `up` link names the capture: the sandbox delivers
// them signed to the API, and they reach the lifecycle through the authorization the provider's capture names.

let stack: WebhookStack;
beforeAll(async () => {
  stack = await startWebhookStack();
});
afterAll(async () => {
  await stack?.close();
});

async function capturedLifecycle(value: string): Promise<{ authorizationId: string; captureId: string }> {
  const authorizationId = await stack.startLifecycle(value);
  const capture = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
  expect(capture.status).toBe(200);
  return { authorizationId, captureId: capture.data.id };
}

describe("refund and reversal events reach the lifecycle through the capture's authorization", () => {
  it('subscribes the listener to PAYMENT.CAPTURE.REFUNDED and REVERSED', async () => {
    const webhook = await stack.payments.getWebhook(stack.webhookId);
    expect(webhook.event_types.map((type) => type.name)).toEqual(
      expect.arrayContaining(['PAYMENT.CAPTURE.REFUNDED', 'PAYMENT.CAPTURE.REVERSED']),
    );
  });

  it('a refund made at the provider is delivered as REFUNDED and recorded by the lifecycle', async () => {
    const { authorizationId, captureId } = await capturedLifecycle('80.00');
    // E.g. from the provider's dashboard: the lifecycle learns of it only from the event.
    const refund = await stack.payments.refundCapture(captureId, {
      amount: { currency_code: 'USD', value: '20.00' },
    });

    const result = await deliveredRefundEvent(stack, 'PAYMENT.CAPTURE.REFUNDED', refund.id);
    expect(result).toMatchObject({
      outcome: 'delivered',
      lifecycleWorkflowId: `authorization-${authorizationId}`,
      event: { eventType: 'PAYMENT.CAPTURE.REFUNDED', captureId, refundId: refund.id },
    });
    const state = await eventually(
      () => stack.lifecycleState(authorizationId),
      (current) => current.status === 'PARTIALLY_REFUNDED',
      { what: 'the lifecycle to record the refund' },
    );
    expect(state.captures[0]).toMatchObject({
      id: captureId,
      status: 'PARTIALLY_REFUNDED',
      refundedAmount: '20.00',
    });
    expect(state.refunds).toEqual([
      expect.objectContaining({ id: refund.id, captureId, kind: 'refund', amount: refund.amount }),
    ]);
    expect(state.recentEvents).toContainEqual(
      expect.objectContaining({ eventType: 'PAYMENT.CAPTURE.REFUNDED', captureId, applied: true }),
    );
  });

  it('the REFUNDED event of a refund the lifecycle made is recorded once, not counted twice', async () => {
    const { authorizationId, captureId } = await capturedLifecycle('30.00');
    const refund = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/captures/${captureId}/refund`,
      {},
      freshKey(),
    );
    expect(refund.status).toBe(200);
    const result = await deliveredRefundEvent(stack, 'PAYMENT.CAPTURE.REFUNDED', refund.data.id);
    expect(result).toMatchObject({ outcome: 'delivered' });
    const state = await stack.lifecycleState(authorizationId);
    expect(state).toMatchObject({ status: 'REFUNDED', refundedAmount: '30.00' });
    expect(state.refunds).toHaveLength(1);
    expect(state.recentEvents).toContainEqual(
      expect.objectContaining({ eventType: 'PAYMENT.CAPTURE.REFUNDED', applied: false }),
    );
  });

  it('a chargeback is delivered as REVERSED and marks the capture and the lifecycle REVERSED', async () => {
    const { authorizationId, captureId } = await capturedLifecycle('45.00');
    const reversal = await stack.provider.post(`/sandbox/captures/${captureId}/reverse`);
    expect(reversal.status).toBe(201);

    const result = await deliveredRefundEvent(stack, 'PAYMENT.CAPTURE.REVERSED', reversal.data.id);
    expect(result).toMatchObject({
      outcome: 'delivered',
      lifecycleWorkflowId: `authorization-${authorizationId}`,
      event: { captureId, refundId: reversal.data.id },
    });
    const state = await eventually(
      () => stack.lifecycleState(authorizationId),
      (current) => current.status === 'REVERSED',
      { what: 'the lifecycle to record the reversal' },
    );
    expect(state.captures[0]).toMatchObject({ status: 'REVERSED', refundedAmount: '45.00' });
    const { searchAttributes } = await stack.client.workflow
      .getHandle(`authorization-${authorizationId}`)
      .describe();
    expect(searchAttributes.PaymentStatus).toEqual(['REVERSED']);
  });
});
