import { randomBytes, randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { encryptingDataConverter } from '../../src/codec/data-converter';
import { EncryptionCodec, KEY_ID_METADATA, UnknownCodecKeyError } from '../../src/codec/payload-encryption';
import { paymentsOperations } from '../../src/nexus/callers';
import { ensureNamespace, ORDERS_NAMESPACE } from '../../src/nexus/endpoint';
import { PaymentsFailure } from '../../src/nexus/service';
import { endpointKeyFor } from '../../src/codec/endpoint-keys';
import { lifecycleWorkflowId } from '../../src/workflows/lifecycle/definitions';
import type { OrderPaymentResult } from '../../examples/orders/workflows';
import { eventually } from '../helpers/eventually';
import { useLifecycleStack } from '../helpers/lifecycle-stack';
import { handlerWorker, startOrdersSide, type OrdersSide } from '../helpers/nexus-stack';
import { TEST_CODEC_KEY, temporalAddress, testDataConverter } from '../helpers/temporal';

// Who may call the payments endpoint, on the real dev server: `orders` may call every operation but `void`,
// a namespace of this file's own (`bounded`) may await at most two outcomes at once, and nothing else may call.
// What crosses the endpoint is sealed with the caller's endpoint key; our namespace's key stays ours.

const ordersEndpointKey = { id: 'orders-endpoint-test', key: randomBytes(32) };
const boundedEndpointKey = { id: 'bounded-endpoint-test', key: randomBytes(32) };
const boundedNamespace = `bounded-${randomUUID().slice(0, 8)}`;
const endpointKeys = new Map([
  [ORDERS_NAMESPACE, [ordersEndpointKey]],
  [boundedNamespace, [boundedEndpointKey]],
]);
const paymentsCodec = new EncryptionCodec([TEST_CODEC_KEY], {
  decryptAlso: [ordersEndpointKey, boundedEndpointKey],
  encryptFor: endpointKeyFor(endpointKeys),
});
const ordersCodec = new EncryptionCodec([ordersEndpointKey]);

const stack = useLifecycleStack({
  timeoutMs: 20_000,
  worker: handlerWorker(
    {
      callers: new Map([
        [ORDERS_NAMESPACE, new Set(paymentsOperations.filter((operation) => operation !== 'void'))],
        [boundedNamespace, new Set(['startLifecycle', 'capture', 'state', 'awaitOutcome'] as const)],
      ]),
      outcomeWaitsPerCaller: 2,
    },
    { dataConverter: encryptingDataConverter(paymentsCodec) },
  ),
});
let orders: OrdersSide;
let stranger: OrdersSide;
let bounded: OrdersSide;

beforeAll(async () => {
  const connection = await Connection.connect({ address: temporalAddress() });
  await ensureNamespace(connection, boundedNamespace);
  await connection.close();
  orders = await startOrdersSide(stack.taskQueue, { dataConverter: encryptingDataConverter(ordersCodec) });
  // Our own namespace is no caller either: only the configured namespaces are.
  stranger = await startOrdersSide(stack.taskQueue, {
    namespace: 'default',
    dataConverter: testDataConverter,
  });
  bounded = await startOrdersSide(stack.taskQueue, {
    namespace: boundedNamespace,
    dataConverter: encryptingDataConverter(new EncryptionCodec([boundedEndpointKey])),
  });
});
afterAll(async () => {
  await Promise.all([orders?.close(), stranger?.close(), bounded?.close()]);
});

/**
 * The first handler error down the cause chain (its `type`, e.g. UNAUTHORIZED, and whether it is retryable),
 * with the messages of it and its causes.
 */
function handlerErrorIn(error: unknown): { type: string; retryable?: boolean; message: string } | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause.name !== 'HandlerError') continue;
    const { type, retryable } = cause as Error & { type: string; retryable?: boolean };
    const messages: string[] = [];
    for (let inner: unknown = cause; inner instanceof Error; inner = inner.cause)
      messages.push(inner.message);
    return { type, retryable, message: messages.join(' <- ') };
  }
  return undefined;
}

it('lets an allowed caller run the example order with its endpoint key only; our payloads stay unreadable to it', async () => {
  const authorization = await stack.createAuthorization('100.00');
  const { result, failure } = await orders.run<OrderPaymentResult>('orderPayment', [
    {
      orderId: 'order-3001',
      authorizationId: authorization.id,
      firstShipmentAmount: '30.00',
      endpoint: orders.endpoint,
    },
  ]);
  expect(failure).toBeUndefined();
  expect(result?.outcome.status).toBe('CAPTURED');
  expect(result?.outcome.capturedAmount).toBe('100.00');

  // The lifecycle's own payloads are under our key, which the order system does not hold.
  const history = await stack.client.workflow.getHandle(lifecycleWorkflowId(authorization.id)).fetchHistory();
  const input = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  expect(Buffer.from(input?.metadata?.[KEY_ID_METADATA] ?? []).toString()).toBe(TEST_CODEC_KEY.id);
  await expect(ordersCodec.decode([input!])).rejects.toThrow(UnknownCodecKeyError);
});

it('refuses an operation the caller may not call, without retrying it', async () => {
  const authorization = await stack.createAuthorization('20.00');
  const call = (operation: string) =>
    orders.run('callPayments', [orders.endpoint, operation, { authorizationId: authorization.id }]);
  expect((await call('startLifecycle')).failure).toBeUndefined();
  const refused = handlerErrorIn((await call('void')).failure);
  expect(refused?.type).toBe('UNAUTHORIZED');
  expect(refused?.retryable).toBe(false);
  expect(refused?.message).toMatch(/namespace "orders" may not call payments.void/);
  expect((await call('state')).result).toMatchObject({ status: 'AUTHORIZED' });
});

it('refuses a namespace that is no caller, on every operation, without retrying it', async () => {
  const authorization = await stack.createAuthorization('20.00');
  for (const operation of ['startLifecycle', 'state', 'awaitOutcome']) {
    const { failure } = await stranger.run('callPayments', [
      stranger.endpoint,
      operation,
      { authorizationId: authorization.id },
    ]);
    const refused = handlerErrorIn(failure);
    expect(refused?.type).toBe('UNAUTHORIZED');
    expect(refused?.retryable).toBe(false);
    expect(refused?.message).toMatch(new RegExp(`namespace "default" may not call payments.${operation}`));
  }
  expect(await stack.lifecycles.state(authorization.id)).toBeNull();
});

it('bounds the open outcome waits of a caller: the third is refused, not retried', async () => {
  const authorization = await stack.createAuthorization('20.00');
  const input = { authorizationId: authorization.id };
  expect(
    (await bounded.run('callPayments', [bounded.endpoint, 'startLifecycle', input])).failure,
  ).toBeUndefined();
  const waiting = await Promise.all(
    [1, 2].map((n) =>
      bounded.client.workflow.start('callPayments', {
        taskQueue: bounded.taskQueue,
        workflowId: `await-${n}-${randomUUID()}`,
        args: [bounded.endpoint, 'awaitOutcome', input],
      }),
    ),
  );
  const query = `WorkflowType = 'paymentOutcome' AND ExecutionStatus = 'Running' AND WorkflowId STARTS_WITH 'payment-outcome/${boundedNamespace}/'`;
  await eventually(
    async () => (await stack.client.workflow.count(query)).count,
    (count) => count === 2,
    { what: 'two open outcome waits' },
  );
  const refused = handlerErrorIn(
    (await bounded.run('callPayments', [bounded.endpoint, 'awaitOutcome', input])).failure,
  );
  expect(refused?.type).toBe('RESOURCE_EXHAUSTED');
  expect(refused?.retryable).toBe(false);
  expect(refused?.message).toMatch(/has 2 open outcome waits, the most allowed \(2\)/);
  await Promise.all(waiting.map((handle) => handle.terminate('test over')));
  for await (const wait of stack.client.workflow.list({ query })) {
    await stack.client.workflow.getHandle(wait.workflowId).terminate('test over');
  }
});

it("confines a caller's lifecycles: to another caller they are unknown, and cannot be adopted", async () => {
  const authorization = await stack.createAuthorization('20.00');
  const input = { authorizationId: authorization.id };
  const byOrders = (operation: string, more = {}) =>
    orders.run('callPayments', [orders.endpoint, operation, { ...input, ...more }]);
  const byOther = (operation: string, more = {}) =>
    bounded.run('callPayments', [bounded.endpoint, operation, { ...input, ...more }]);
  const failureType = (run: { failure?: Error }) =>
    run.failure?.cause instanceof ApplicationFailure ? run.failure.cause.type : undefined;

  expect((await byOrders('startLifecycle')).failure).toBeUndefined();
  expect((await byOther('state')).result).toBeNull();
  expect(failureType(await byOther('capture', { amount: '5.00' }))).toBe(PaymentsFailure.notFound);
  expect(failureType(await byOther('awaitOutcome'))).toBe(PaymentsFailure.notFound);
  expect(failureType(await byOther('startLifecycle'))).toBe(PaymentsFailure.notManageable);
  expect(await stack.capturesAtProvider(authorization.id)).toHaveLength(0);
  expect((await byOrders('state')).result).toMatchObject({ status: 'AUTHORIZED' });
  expect((await stack.lifecycles.state(authorization.id))?.owner).toBe('nexus:orders');
});
