import { sandboxPaymentsClient, startLifecycleStack, type LifecycleStack } from './helpers/lifecycle-stack';
import { lifecycleWorkflowId, paymentEventSignal } from '../src/workflows/lifecycle/definitions';

// Found on the cluster (test/cluster): a capture whose answer was lost while the history service restarted,
// and whose provider webhook reached the lifecycle before the order system retried it with its key.

let stack: LifecycleStack;

beforeAll(async () => {
  stack = await startLifecycleStack();
});
afterAll(async () => {
  await stack?.close();
});

async function startLifecycle(value: string) {
  const authorization = await stack.createAuthorization(value);
  const response = await stack.api.post('/v1/lifecycles', {
    authorizationId: authorization.id,
    lateEventWindow: '1 minute',
  });
  expect(response.status).toBe(201);
  return authorization.id;
}

/** The capture the first attempt made at the provider (same request id), and its webhook into the lifecycle. */
async function captureKnownOnlyFromTheWebhook(authorizationId: string, key: string) {
  const capture = await sandboxPaymentsClient(stack.sandbox).captureAuthorization(
    authorizationId,
    { final_capture: true },
    `${authorizationId}-${key}`,
  );
  await stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId)).signal(paymentEventSignal, {
    id: `WH-${capture.id}`,
    eventType: 'PAYMENT.CAPTURE.COMPLETED',
    authorizationId,
    captureId: capture.id,
    status: 'COMPLETED',
    amount: capture.amount,
    finalCapture: true,
  });
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const state = (await stack.api.get(`/v1/lifecycles/${authorizationId}`)).data as { status: string };
    if (state.status === 'CAPTURED') return capture;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the webhook never captured the lifecycle');
}

it('answers the retried request with the capture the webhook reported, capturing nothing more', async () => {
  const id = await startLifecycle('30.00');
  const capture = await captureKnownOnlyFromTheWebhook(id, 'order-7-capture');

  const retried = await stack.api.post(
    `/v1/lifecycles/${id}/capture`,
    {},
    {
      headers: { 'idempotency-key': 'order-7-capture' },
    },
  );
  expect(retried.status).toBe(200);
  expect(retried.data).toMatchObject({ id: capture.id, amount: { value: '30.00' } });
  const held = await stack.provider.get(`/sandbox/authorizations/${id}/captures`);
  expect((held.data as { captures: unknown[] }).captures).toHaveLength(1);
  const state = (await stack.api.get(`/v1/lifecycles/${id}`)).data as {
    captures: Array<{ id: string; requestId?: string }>;
  };
  expect(state.captures).toEqual([
    expect.objectContaining({ id: capture.id, requestId: `${id}-order-7-capture` }),
  ]);
});

it('still refuses a request with another key once the lifecycle is captured', async () => {
  const id = await startLifecycle('30.00');
  await captureKnownOnlyFromTheWebhook(id, 'order-8-capture');

  const other = await stack.api.post(
    `/v1/lifecycles/${id}/capture`,
    {},
    {
      headers: { 'idempotency-key': 'order-8-another' },
    },
  );
  expect(other.status).toBe(409);
  const held = await stack.provider.get(`/sandbox/authorizations/${id}/captures`);
  expect((held.data as { captures: unknown[] }).captures).toHaveLength(1);
});
