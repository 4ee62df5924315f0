import { randomUUID } from 'node:crypto';
import type { Authorization, PaymentCapture } from '../../src/providers/resources';
import { lifecycleWorkflowId, type LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { eventually } from '../helpers/eventually';
import { providerFixtures } from '../helpers/provider-fixtures';
import { useProviderStack, type ProviderStack } from '../helpers/provider-stack';

// A whole lifecycle through each door an order system uses (the HTTP API, Nexus from the `orders` namespace),
// once per provider (test/helpers/provider-fixtures.ts): start, partial captures, a refund, a chargeback the
// provider delivers as an event, the close; and start, a reauthorization, a capture on the new authorization.

/** What an order system does to a lifecycle, through one door. */
interface Door {
  start(stack: ProviderStack, authorizationId: string, body?: Record<string, unknown>): Promise<void>;
  capture(
    stack: ProviderStack,
    authorizationId: string,
    request: { amount: string; finalCapture?: boolean },
    key: string,
  ): Promise<PaymentCapture>;
  reauthorize(stack: ProviderStack, authorizationId: string, key: string): Promise<Authorization>;
}

function ok<T>(response: { status: number; data: unknown }): T {
  expect(response.status).toBeLessThan(300);
  return response.data as T;
}

const apiDoor: Door = {
  start: async (stack, authorizationId, body = {}) => {
    expect((await stack.api.post('/v1/lifecycles', { authorizationId, ...body })).status).toBe(201);
  },
  capture: async (stack, authorizationId, request, key) =>
    ok(
      await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, request, {
        headers: { 'idempotency-key': key },
      }),
    ),
  reauthorize: async (stack, authorizationId, key) =>
    ok(
      await stack.api.post(
        `/v1/lifecycles/${authorizationId}/reauthorize`,
        {},
        { headers: { 'idempotency-key': key } },
      ),
    ),
};

async function nexus<T>(stack: ProviderStack, operation: string, input: Record<string, unknown>): Promise<T> {
  const run = await stack.orders.run<T>('callPayments', [stack.orders.endpoint, operation, input]);
  expect(run.failure).toBeUndefined();
  return run.result as T;
}

const nexusDoor: Door = {
  start: async (stack, authorizationId, body = {}) => {
    await nexus(stack, 'startLifecycle', { authorizationId, ...body });
  },
  capture: (stack, authorizationId, request, idempotencyKey) =>
    nexus(stack, 'capture', { authorizationId, ...request, idempotencyKey }),
  reauthorize: (stack, authorizationId, idempotencyKey) =>
    nexus(stack, 'reauthorize', { authorizationId, idempotencyKey }),
};

describe.each(providerFixtures)('a $name lifecycle', (fixture) => {
  const stack = useProviderStack(fixture);

  describe.each([
    ['the API', apiDoor],
    ['Nexus', nexusDoor],
  ])('through %s', (_door, door) => {
    it('starts, captures in parts (once per key), refunds, takes a chargeback and closes', async () => {
      const id = await stack.authorize('100.00', { severalCaptures: true });
      await door.start(stack, id, { lateEventWindow: '3 seconds' });

      const firstKey = randomUUID();
      const first = await door.capture(stack, id, { amount: '20.00' }, firstKey);
      expect(await door.capture(stack, id, { amount: '20.00' }, firstKey)).toEqual(first);
      const second = await door.capture(stack, id, { amount: '30.00' }, randomUUID());
      expect(second.id).not.toBe(first.id);
      expect(await stack.state(id)).toMatchObject({
        status: 'PARTIALLY_CAPTURED',
        capturedAmount: '50.00',
        remainingAmount: '50.00',
      });

      const refund = await stack.lifecycles.refund(id, second.id, {
        amount: '10.00',
        idempotencyKey: randomUUID(),
      });
      expect(refund).toMatchObject({ status: 'COMPLETED', amount: { value: '10.00' } });

      // The last capture is final: the provider releases what is left.
      await door.capture(stack, id, { amount: '10.00', finalCapture: true }, randomUUID());
      expect(await stack.state(id)).toMatchObject({
        status: 'PARTIALLY_REFUNDED',
        capturedAmount: '60.00',
        remainingAmount: '0.00',
        refundedAmount: '10.00',
      });
      expect((await fixture.captured(stack.sandbox, id)).total).toBe('60.00');

      // The payer's bank disputes the first capture (on Stripe, the charge all three captures share, which the
      // lifecycle splits over them oldest first, as `<dispute>/<capture>`); the provider's event reaches it.
      const reversalId = await fixture.chargeback(stack.sandbox, first.id);
      const reversalOfFirst = (state: LifecycleState) =>
        state.refunds?.find(
          (entry) =>
            entry.kind === 'reversal' &&
            entry.captureId === first.id &&
            (entry.id === reversalId || entry.id.startsWith(`${reversalId}/`)),
        );
      const reversed = await eventually(
        () => stack.state(id),
        (state) => reversalOfFirst(state) !== undefined,
        { what: 'the lifecycle to record the chargeback' },
      );
      expect(reversalOfFirst(reversed)).toMatchObject({ amount: { value: '20.00' } });
      expect(reversed.captures.find((capture) => capture.id === first.id)).toMatchObject({
        status: 'REVERSED',
      });

      // The late-event window ends: the run closes with the state it reached.
      const closed = (await stack.client.workflow
        .getHandle(lifecycleWorkflowId(id))
        .result()) as LifecycleState;
      expect(reversalOfFirst(closed)).toEqual(reversalOfFirst(reversed));
      expect(closed.capturedAmount).toBe('60.00');
      expect(closed.nextTimer).toBeUndefined();
    });

    it('reauthorizes, then captures on the new authorization', async () => {
      const id = await stack.authorize('50.00');
      await door.start(stack, id);
      const renewed = await door.reauthorize(stack, id, randomUUID());
      expect(renewed.id).not.toBe(id);
      expect(await stack.state(id)).toMatchObject({
        status: 'AUTHORIZED',
        currentAuthorizationId: renewed.id,
      });

      const capture = await door.capture(stack, id, { amount: '50.00' }, randomUUID());
      expect(capture).toMatchObject({ status: 'COMPLETED', amount: { value: '50.00' } });
      expect(await fixture.captured(stack.sandbox, renewed.id)).toEqual({
        captureIds: [capture.id],
        total: '50.00',
      });
      expect((await fixture.captured(stack.sandbox, id)).total).toBe('0.00');
      expect(await stack.state(id)).toMatchObject({ status: 'CAPTURED', currentAuthorizationId: renewed.id });
    });
  });
});
