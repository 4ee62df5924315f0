import { ApplicationFailure } from '@temporalio/common';
import {
  PaymentsFailure,
  paymentsFailure,
  type OrderCompletion,
  type PaymentState,
} from '../../src/nexus/service';
import { lifecycleWorkflowId } from '../../src/workflows/lifecycle/definitions';
import type { PaymentCapture } from '../../src/providers/resources';
import type { OrderPaymentResult } from '../../examples/orders/workflows';
import { eventually } from '../helpers/eventually';
import { useLifecycleStack } from '../helpers/lifecycle-stack';
import { providerFixtures } from '../helpers/provider-fixtures';
import { useProviderStack } from '../helpers/provider-stack';
import { handlerWorkerOptions, startOrdersSide, type OrdersSide } from '../helpers/nexus-stack';

// Order workflows in the `orders` namespace call payments through a Nexus endpoint on the real dev server;
// our handlers run in a worker of the `default` namespace, against the real sandbox: once per provider
// (test/helpers/provider-fixtures.ts), and what differs on PayPal apart.

function failureOf(run: { failure?: Error }): ApplicationFailure | undefined {
  const cause = run.failure?.cause;
  return cause instanceof ApplicationFailure ? cause : undefined;
}

/** Every message down the cause chain, with handler error types. */
function causeMessages(error: unknown): string {
  const messages: string[] = [];
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const type = (cause as { type?: unknown }).type;
    messages.push(`${typeof type === 'string' ? `${type}: ` : ''}${cause.message}`);
  }
  return messages.join(' <- ');
}

describe.each(providerFixtures)('a $name lifecycle over Nexus', (fixture) => {
  const stack = useProviderStack(fixture);

  async function startedLifecycle(value: string): Promise<string> {
    const authorizationId = await stack.authorize(value);
    const started = await stack.orders.run('callPayments', [
      stack.orders.endpoint,
      'startLifecycle',
      { authorizationId },
    ]);
    expect(started.failure).toBeUndefined();
    return authorizationId;
  }

  /** The attempt of the waiting workflow's read of the outcome (2 once a read found the lifecycle open); 0 before. */
  async function outcomeReadAttempts(authorizationId: string): Promise<number> {
    const query = `WorkflowType = 'paymentOutcome' AND WorkflowId STARTS_WITH 'payment-outcome/orders/${authorizationId}/'`;
    for await (const run of stack.client.workflow.list({ query })) {
      const { raw } = await stack.client.workflow.getHandle(run.workflowId, run.runId).describe();
      return raw.pendingActivities?.[0]?.attempt ?? 0;
    }
    return 0;
  }

  it('runs the example order workflow: lifecycle, two captures, the outcome; the provider holds both', async () => {
    const authorizationId = await stack.authorize('100.00', { severalCaptures: true });
    const { result, failure } = await stack.orders.run<OrderPaymentResult>('orderPayment', [
      {
        orderId: 'order-1001',
        authorizationId,
        firstShipmentAmount: '30.00',
        endpoint: stack.orders.endpoint,
      },
    ]);
    expect(failure).toBeUndefined();
    const state = await stack.state(authorizationId);
    expect(state.captures.map((capture) => capture.amount.value)).toEqual(['30.00', '70.00']);
    expect(result?.captureIds).toEqual(state.captures.map((capture) => capture.id));
    expect((await fixture.captured(stack.sandbox, authorizationId)).total).toBe('100.00');
    expect(result?.outcome.status).toBe('CAPTURED');
    expect(result?.outcome.capturedAmount).toBe('100.00');
    expect(result?.outcome).not.toHaveProperty('keyedAnswers');
  });

  it('answers a retry under the same key with the first capture, and refuses the key with other parameters', async () => {
    const authorizationId = await startedLifecycle('50.00');
    const capture = (amount: string) =>
      stack.orders.run<PaymentCapture>('callPayments', [
        stack.orders.endpoint,
        'capture',
        { authorizationId, amount, idempotencyKey: 'order-2002.shipment-1' },
      ]);
    const first = await capture('10.00');
    const retried = await capture('10.00');
    expect(retried.result?.id).toBe(first.result?.id);

    const reused = await capture('20.00');
    expect(failureOf(reused)?.type).toBe(PaymentsFailure.keyReused);
    expect(failureOf(reused)?.message).toMatch(/amount "10.00"; this request has amount "20.00"/);
    expect((await fixture.captured(stack.sandbox, authorizationId)).total).toBe('10.00');
  });

  it('tells the lifecycle state forbidding a request apart, without retrying it', async () => {
    const authorizationId = await startedLifecycle('25.00');
    expect(
      (await stack.orders.run('callPayments', [stack.orders.endpoint, 'void', { authorizationId }])).failure,
    ).toBeUndefined();
    const refused = await stack.orders.run('callPayments', [
      stack.orders.endpoint,
      'capture',
      { authorizationId },
    ]);
    expect(failureOf(refused)?.type).toBe(PaymentsFailure.stateForbids);
    const bad = await stack.orders.run('callPayments', [
      stack.orders.endpoint,
      'capture',
      { authorizationId, amount: 'ten' },
    ]);
    expect(causeMessages(bad.failure)).toMatch(/BAD_REQUEST.*amount: a positive decimal amount/s);
  });

  it('completes an order: PayPal releases the rest by a void; a Stripe intent released it with its one capture', async () => {
    const authorizationId = await startedLifecycle('80.00');
    const call = (operation: 'capture' | 'complete', input: Record<string, unknown> = {}) =>
      stack.orders.run<OrderCompletion>('callPayments', [
        stack.orders.endpoint,
        operation,
        { authorizationId, ...input },
      ]);
    expect((await call('capture', { amount: '20.00' })).failure).toBeUndefined();
    const completed = await call('complete', { idempotencyKey: 'order-3003.complete' });
    if (fixture.name === 'paypal') {
      expect(completed.result).toEqual({
        authorizationId,
        released: { currency_code: 'USD', value: '60.00' },
        status: 'CAPTURED',
      });
    } else {
      expect(failureOf(completed)?.type).toBe(PaymentsFailure.stateForbids);
    }
    expect(await stack.state(authorizationId)).toMatchObject({ status: 'CAPTURED', remainingAmount: '0.00' });
  });

  it('completes the awaited outcome when the lifecycle is voided through the HTTP API', async () => {
    const authorizationId = await startedLifecycle('60.00');
    const handle = await stack.orders.client.workflow.start('callPayments', {
      taskQueue: stack.orders.taskQueue,
      workflowId: `await-${authorizationId}`,
      args: [stack.orders.endpoint, 'awaitOutcome', { authorizationId }],
    });
    // The waiting workflow is polling the lifecycle before the void: its read found it not yet terminal.
    await eventually(
      () => outcomeReadAttempts(authorizationId),
      (attempts) => attempts > 1,
      { what: 'the waiting workflow to read the lifecycle' },
    );
    expect((await stack.api.post(`/v1/lifecycles/${authorizationId}/void`, {})).status).toBe(200);
    const outcome = (await handle.result()) as PaymentState;
    expect(outcome.status).toBe('VOIDED');
  });

  it('fails the awaited outcome, naming why, when the lifecycle is terminated before it has one', async () => {
    const authorizationId = await startedLifecycle('40.00');
    await stack.client.workflow
      .getHandle(lifecycleWorkflowId(authorizationId))
      .terminate('stopped by an operator');
    const awaited = await stack.orders.run('callPayments', [
      stack.orders.endpoint,
      'awaitOutcome',
      { authorizationId },
    ]);
    const failure = paymentsFailure(awaited.failure);
    expect(failure?.type).toBe(PaymentsFailure.noOutcome);
    expect(failure?.message).toBe(
      `the lifecycle of authorization ${authorizationId} closed TERMINATED without an outcome (the lifecycle is AUTHORIZED)`,
    );
  });

  it('fails the awaited outcome with the lifecycle’s own failure when it failed at start', async () => {
    const authorization = { id: await stack.authorize('10.00') };
    await fixture.expire(stack.sandbox, authorization.id);
    const started = await stack.orders.run('callPayments', [
      stack.orders.endpoint,
      'startLifecycle',
      { authorizationId: authorization.id },
    ]);
    expect(paymentsFailure(started.failure)?.type).toBe(PaymentsFailure.notManageable);
    const awaited = await stack.orders.run('callPayments', [
      stack.orders.endpoint,
      'awaitOutcome',
      { authorizationId: authorization.id },
    ]);
    const failure = paymentsFailure(awaited.failure);
    expect(failure?.type).toBe(PaymentsFailure.noOutcome);
    expect(failure?.message).toMatch(
      new RegExp(
        `closed FAILED without an outcome \\(the lifecycle is starting\\): authorization ${authorization.id} .*EXPIRED`,
      ),
    );
  });
});

describe('on PayPal', () => {
  // The provider may stall longer than a Nexus request lasts: the capture activity waits for it.
  const stack = useLifecycleStack({ timeoutMs: 20_000, worker: handlerWorkerOptions });
  let orders: OrdersSide;

  beforeAll(async () => {
    orders = await startOrdersSide(stack.taskQueue);
  });
  afterAll(async () => {
    await orders?.close();
  });

  async function startedLifecycle(value: string): Promise<string> {
    const authorization = await stack.createAuthorization(value);
    const started = await orders.run('callPayments', [
      orders.endpoint,
      'startLifecycle',
      { authorizationId: authorization.id },
    ]);
    expect(started.failure).toBeUndefined();
    return authorization.id;
  }

  it('captures once when the provider outlasts the Nexus request: the retry (same request id) gets that capture', async () => {
    const authorizationId = await startedLifecycle('40.00');
    // Longer than the server's 10 s Nexus request timeout: the first request gives up as UNAVAILABLE.
    await stack.provider.post('/sandbox/faults', { operation: 'capture', mode: 'stall', stallMs: 12_000 });
    const { result, failure } = await orders.run<PaymentCapture>('callPayments', [
      orders.endpoint,
      'capture',
      { authorizationId, amount: '15.00' },
    ]);
    expect(failure).toBeUndefined();
    const captures = await stack.capturesAtProvider(authorizationId);
    expect(captures).toHaveLength(1);
    expect(result?.id).toBe(captures[0]?.id);
  }, 60_000);

  it('tells a provider refusal and a missing lifecycle apart, without retrying them', async () => {
    const authorization = await stack.createAuthorization('10.00', { intent: 'CAPTURE' });
    const call = (operation: string, input: unknown) =>
      orders.run('callPayments', [orders.endpoint, operation, input]);
    expect((await call('startLifecycle', { authorizationId: authorization.id })).failure).toBeUndefined();
    const refused = await call('capture', { authorizationId: authorization.id });
    expect(failureOf(refused)?.type).toBe(PaymentsFailure.providerRefused);
    expect(await stack.capturesAtProvider(authorization.id)).toHaveLength(0);

    const missing = await call('void', { authorizationId: 'NO-SUCH-AUTHORIZATION' });
    expect(failureOf(missing)?.type).toBe(PaymentsFailure.notFound);
    expect((await call('state', { authorizationId: 'NO-SUCH-AUTHORIZATION' })).result).toBeNull();
  });
});
