import { randomUUID } from 'node:crypto';
import { eventually } from '../helpers/eventually';
import { deliveredRefundEvent, startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';
import { lifecycleWorkflowId } from '../../src/workflows/lifecycle/definitions';
import type { WebhookVerificationResult } from '../../src/workflows/webhooks/definitions';

// Refund and reversal events name only their capture: they reach the lifecycle through the provider's link
// from the capture to its authorization, with no search attribute that grows with the captures, and reach
// a lifecycle that has closed by reopening it.

let stack: WebhookStack;
beforeAll(async () => {
  stack = await startWebhookStack();
});
afterAll(async () => {
  await stack?.close();
});

/** Temporal refuses a search attribute value over 2 KiB (and terminates the run that upserts it). */
const SEARCH_ATTRIBUTE_VALUE_LIMIT_BYTES = 2048;

/** The body of a refund or reversal event of `captureId`, as the provider sends it: its `up` link names the capture. */
function refundEvent(
  captureId: string,
  options: { eventType?: string; value?: string; eventId?: string } = {},
): { eventId: string; refundId: string; body: string } {
  const eventId = options.eventId ?? `WH-${randomUUID()}`;
  const refundId = randomUUID().replace(/-/g, '').slice(0, 17).toUpperCase();
  const body = JSON.stringify({
    id: eventId,
    event_version: '1.0',
    create_time: '2026-05-01T12:00:00Z',
    resource_type: 'refund',
    event_type: options.eventType ?? 'PAYMENT.CAPTURE.REFUNDED',
    summary: 'A payment capture was refunded',
    resource: {
      id: refundId,
      status: 'COMPLETED',
      amount: { currency_code: 'USD', value: options.value ?? '1.00' },
      links: [{ href: `${stack.sandbox.url}/v2/payments/captures/${captureId}`, rel: 'up', method: 'GET' }],
    },
  });
  return { eventId, refundId, body };
}

/** Delivers `body` signed, in a transmission of its own, and answers its verification result. */
async function delivered(body: string): Promise<WebhookVerificationResult> {
  const delivery = stack.sign(body);
  expect((await stack.deliver(delivery)).status).toBe(202);
  return stack.verification(delivery.transmissionId);
}

/** A lifecycle with `lateEventWindow`, captured in full through the API; answers its ids. */
async function capturedLifecycle(
  value: string,
  lateEventWindow: string,
): Promise<{ authorizationId: string; captureId: string }> {
  const authorization = await stack.createAuthorization(value);
  const started = await stack.api.post('/v1/lifecycles', {
    authorizationId: authorization.id,
    lateEventWindow,
  });
  expect(started.status).toBe(201);
  const capture = await stack.api.post(
    `/v1/lifecycles/${authorization.id}/capture`,
    {},
    { headers: { 'Idempotency-Key': randomUUID() } },
  );
  expect(capture.status).toBe(200);
  return { authorizationId: authorization.id, captureId: capture.data.id };
}

function lifecycleHandle(authorizationId: string) {
  return stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId));
}

/** Waits for the lifecycle's run to close, and answers its run id. */
async function closedRun(authorizationId: string): Promise<string> {
  const description = await eventually(
    () => lifecycleHandle(authorizationId).describe(),
    (described) => described.status.name === 'COMPLETED',
    { what: `the lifecycle of ${authorizationId} to close` },
  );
  return description.runId;
}

/** The run ids of the lifecycle's workflow id, oldest first. */
async function runsOf(authorizationId: string): Promise<string[]> {
  const runs: string[] = [];
  const query = `WorkflowId = '${lifecycleWorkflowId(authorizationId)}'`;
  for await (const run of stack.client.workflow.list({ query })) runs.push(run.runId);
  return runs.reverse();
}

describe('a lifecycle with many captures', () => {
  it('keeps every search attribute value within Temporal limits for 120 captures, and routes their refunds', async () => {
    const authorizationId = await stack.startLifecycle('5.00');
    // Captures made at the provider (e.g. from its dashboard): the lifecycle learns of each from its
    // PAYMENT.CAPTURE.COMPLETED event, which no capture bound of the API limits.
    const captureIds: string[] = [];
    for (let i = 0; i < 120; i += 1) {
      const capture = await stack.payments.captureAuthorization(
        authorizationId,
        { amount: { currency_code: 'USD', value: '0.01' }, final_capture: false },
        randomUUID(),
      );
      captureIds.push(capture.id);
    }
    await eventually(
      async () => (await stack.lifecycleState(authorizationId)).captures?.length,
      (recorded) => recorded === 120,
      { what: 'the lifecycle to record 120 captures', timeoutMs: 120_000, intervalMs: 1_000 },
    );
    expect(await stack.lifecycleState(authorizationId)).toMatchObject({
      status: 'PARTIALLY_CAPTURED',
      capturedAmount: '1.20',
    });

    const description = await lifecycleHandle(authorizationId).describe();
    expect(description.status.name).toBe('RUNNING');
    for (const value of Object.values(description.searchAttributes)) {
      expect(Buffer.byteLength(JSON.stringify(value))).toBeLessThan(SEARCH_ATTRIBUTE_VALUE_LIMIT_BYTES);
    }
    expect(description.searchAttributes.CaptureIds).toBeUndefined();

    // A refund of the first capture, made at the provider: its event reaches the lifecycle through the
    // capture's authorization.
    const refund = await stack.payments.refundCapture(
      captureIds[0]!,
      { amount: { currency_code: 'USD', value: '0.01' } },
      randomUUID(),
    );
    expect(await deliveredRefundEvent(stack, 'PAYMENT.CAPTURE.REFUNDED', refund.id)).toMatchObject({
      lifecycleWorkflowId: lifecycleWorkflowId(authorizationId),
      event: { captureId: captureIds[0], refundId: refund.id },
    });
    const refunded = await eventually(
      () => stack.lifecycleState(authorizationId),
      (current) => current.refunds?.length === 1,
      { what: 'the lifecycle to record the refund' },
    );
    expect(refunded.captures.find((capture) => capture.id === captureIds[0])).toMatchObject({
      status: 'REFUNDED',
      refundedAmount: '0.01',
    });
  }, 300_000);
});

describe('a refund or chargeback of a closed lifecycle', () => {
  it('reopens the lifecycle for a chargeback, which it records on its state and search attributes', async () => {
    const { authorizationId, captureId } = await capturedLifecycle('45.00', '1s');
    const closed = await closedRun(authorizationId);

    const reversal = await stack.provider.post(`/sandbox/captures/${captureId}/reverse`);
    expect(reversal.status).toBe(201);
    expect(await deliveredRefundEvent(stack, 'PAYMENT.CAPTURE.REVERSED', reversal.data.id)).toMatchObject({
      outcome: 'delivered',
      lifecycleWorkflowId: lifecycleWorkflowId(authorizationId),
      event: { captureId, refundId: reversal.data.id },
    });

    const description = await lifecycleHandle(authorizationId).describe();
    expect(description.status.name).toBe('RUNNING');
    expect(description.runId).not.toBe(closed);
    // The reopened run stays its owner's: the API's caller (development's `dev`) finds it by the memo.
    expect(description.memo).toMatchObject({ owner: 'dev' });
    const state = await eventually(
      () => stack.lifecycleState(authorizationId),
      (current) => current.status === 'REVERSED',
      { what: 'the reopened lifecycle to record the reversal' },
    );
    expect(state.captures[0]).toMatchObject({ id: captureId, status: 'REVERSED', refundedAmount: '45.00' });
    expect(state.refunds).toEqual([expect.objectContaining({ id: reversal.data.id, kind: 'reversal' })]);
    expect(state.nextTimer).toMatchObject({ kind: 'close' });
    expect((await lifecycleHandle(authorizationId).describe()).searchAttributes).toMatchObject({
      PaymentStatus: ['REVERSED'],
      AuthorizationId: [authorizationId],
    });
  });

  it('two events and a duplicate at once end in one reopened run that records each event once', async () => {
    const { authorizationId, captureId } = await capturedLifecycle('30.00', '1s');
    await closedRun(authorizationId);

    const first = refundEvent(captureId, { value: '5.00' });
    const second = refundEvent(captureId, { value: '7.00' });
    const results = await Promise.all([delivered(first.body), delivered(second.body), delivered(first.body)]);
    for (const result of results) {
      expect(result).toMatchObject({
        outcome: 'delivered',
        lifecycleWorkflowId: lifecycleWorkflowId(authorizationId),
      });
    }

    expect(await runsOf(authorizationId)).toHaveLength(2);
    const state = await eventually(
      () => stack.lifecycleState(authorizationId),
      (current) => current.refunds?.length === 2,
      { what: 'the reopened lifecycle to record both refunds' },
    );
    expect(state).toMatchObject({ status: 'PARTIALLY_REFUNDED', refundedAmount: '12.00' });
    expect(state.refunds?.map((refund) => refund.id).sort()).toEqual(
      [first.refundId, second.refundId].sort(),
    );
    expect(state.recentEvents.filter((event) => event.id === first.eventId)).toHaveLength(1);
  });

  it('does not reopen the lifecycle for an event it recorded before it closed', async () => {
    const { authorizationId, captureId } = await capturedLifecycle('20.00', '2s');
    const event = refundEvent(captureId, { value: '4.00' });
    expect(await delivered(event.body)).toMatchObject({ outcome: 'delivered' });
    const closed = await closedRun(authorizationId);

    expect(await delivered(event.body)).toMatchObject({
      outcome: 'delivered',
      lifecycleWorkflowId: lifecycleWorkflowId(authorizationId),
      alreadyRecorded: true,
    });
    expect(await runsOf(authorizationId)).toEqual([closed]);
    expect((await lifecycleHandle(authorizationId).result())?.refundedAmount).toBe('4.00');
  });
});
