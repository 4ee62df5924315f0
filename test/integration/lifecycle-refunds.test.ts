import type { AxiosInstance } from 'axios';
import { randomUUID } from 'node:crypto';
import { eventually } from '../helpers/eventually';
import { freshKey, sandboxPaymentsClient, useLifecycleStack } from '../helpers/lifecycle-stack';
import { providerFixtures } from '../helpers/provider-fixtures';
import { useProviderStack } from '../helpers/provider-stack';
import type { PaymentEventKind } from '../../src/providers/events';
import { lifecycleWorkflowId, paymentEventSignal } from '../../src/workflows/lifecycle/definitions';

/** Refunds a capture through the API's refund route, with an Idempotency-Key when one is given. */
function refund(
  stack: { api: AxiosInstance },
  authorizationId: string,
  captureId: string,
  body: Record<string, unknown>,
  idempotencyKey?: string,
) {
  return stack.api.post(`/v1/lifecycles/${authorizationId}/captures/${captureId}/refund`, body, {
    headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
  });
}

// Refunds through the API and the typed client, on the dev server and the sandbox, over real HTTP: the
// guarantees once per provider (test/helpers/provider-fixtures.ts), a refund learnt only from an event on PayPal.

const key = () => `refund-${randomUUID()}`;

describe.each(providerFixtures)('refunds of a $name lifecycle', (fixture) => {
  const stack = useProviderStack(fixture);

  async function captured(value: string, start: Record<string, unknown> = {}) {
    const authorizationId = await stack.startLifecycle(value, start);
    const capture = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
    expect(capture.status).toBe(200);
    return { authorizationId, captureId: capture.data.id as string };
  }

  const refundedAtProvider = (captureId: string) => fixture.refunded(stack.sandbox, captureId);
  const lifecycleState = (authorizationId: string) => stack.state(authorizationId);

  describe('POST /v1/lifecycles/:authorizationId/captures/:captureId/refund', () => {
    it('refunds in part, then in full; the state records each refund and the statuses follow', async () => {
      const { authorizationId, captureId } = await captured('100.00');
      const partial = await refund(stack, authorizationId, captureId, { amount: '30' }, key());
      expect(partial.status).toBe(200);
      expect(partial.data).toMatchObject({
        status: 'COMPLETED',
        amount: { currency_code: 'USD', value: '30.00' },
      });
      let state = await lifecycleState(authorizationId);
      expect(state.status).toBe('PARTIALLY_REFUNDED');
      expect(state.captures).toEqual([
        expect.objectContaining({ id: captureId, status: 'PARTIALLY_REFUNDED', refundedAmount: '30.00' }),
      ]);

      const rest = await refund(stack, authorizationId, captureId, {}, key());
      expect(rest.status).toBe(200);
      expect(rest.data.amount).toEqual({ currency_code: 'USD', value: '70.00' });
      state = await lifecycleState(authorizationId);
      expect(state).toMatchObject({ status: 'REFUNDED', refundedAmount: '100.00', capturedAmount: '100.00' });
      expect(state.captures[0]).toMatchObject({ status: 'REFUNDED', refundedAmount: '100.00' });
      expect(state.refunds).toEqual([
        expect.objectContaining({
          id: partial.data.id,
          captureId,
          kind: 'refund',
          amount: partial.data.amount,
        }),
        expect.objectContaining({ id: rest.data.id, captureId, kind: 'refund', amount: rest.data.amount }),
      ]);
      expect(await refundedAtProvider(captureId)).toBe('100.00');
      const { searchAttributes } = await stack.client.workflow
        .getHandle(lifecycleWorkflowId(authorizationId))
        .describe();
      expect(searchAttributes.PaymentStatus).toEqual(['REFUNDED']);
      expect(searchAttributes.CaptureIds).toBeUndefined();
    });

    it('answers the same refund to the same Idempotency-Key, with one refund at the provider', async () => {
      const { authorizationId, captureId } = await captured('50.00');
      const idempotencyKey = key();
      const first = await refund(stack, authorizationId, captureId, { amount: '10.00' }, idempotencyKey);
      const again = await refund(stack, authorizationId, captureId, { amount: '10' }, idempotencyKey);
      const concurrent = await Promise.all([
        refund(stack, authorizationId, captureId, { amount: '10.00' }, idempotencyKey),
        refund(stack, authorizationId, captureId, { amount: '10.00' }, idempotencyKey),
      ]);
      for (const answer of [first, again, ...concurrent]) {
        expect(answer.status).toBe(200);
        expect(answer.data).toEqual(first.data);
      }
      expect(await refundedAtProvider(captureId)).toBe('10.00');
      expect((await lifecycleState(authorizationId)).refundedAmount).toBe('10.00');
    });

    it('refuses a key reused with other parameters, like capture, naming the field', async () => {
      const { authorizationId, captureId } = await captured('40.00');
      const idempotencyKey = key();
      expect(
        (await refund(stack, authorizationId, captureId, { amount: '5.00' }, idempotencyKey)).status,
      ).toBe(200);
      const otherAmount = await refund(stack, authorizationId, captureId, { amount: '6.00' }, idempotencyKey);
      expect(otherAmount.status).toBe(422);
      expect(otherAmount.data.error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
      expect(otherAmount.data.error.message).toContain('amount "5.00"');
      const addedNote = await refund(
        stack,
        authorizationId,
        captureId,
        { amount: '5.00', noteToPayer: 'sorry' },
        idempotencyKey,
      );
      expect(addedNote.status).toBe(422);
      expect(addedNote.data.error.message).toContain('noteToPayer');
      const asCapture = await stack.api.post(
        `/v1/lifecycles/${authorizationId}/capture`,
        {},
        { headers: { 'idempotency-key': idempotencyKey } },
      );
      expect(asCapture.status).toBe(422);
      expect(asCapture.data.error.message).toContain('for a refund, not a capture');
      expect(await refundedAtProvider(captureId)).toBe('5.00');
    });

    it('refuses more than the capture has left, an unknown capture, and bad fields, before the provider', async () => {
      const { authorizationId, captureId } = await captured('20.00');
      const tooMuch = await refund(stack, authorizationId, captureId, { amount: '20.01' }, key());
      expect(tooMuch.status).toBe(409);
      expect(tooMuch.data.error).toMatchObject({ code: 'LIFECYCLE_STATE_FORBIDS' });
      expect(tooMuch.data.error.message).toContain('amount: 20.01 USD is more than the 20.00');
      const unknown = await refund(stack, authorizationId, 'NOTACAPTURE00000', {}, key());
      expect(unknown.status).toBe(400);
      expect(unknown.data.error.message).toContain('captureId');
      const badAmount = await refund(stack, authorizationId, captureId, { amount: '-1' }, key());
      expect(badAmount.status).toBe(400);
      expect(badAmount.data.error.message).toContain('amount');
      const unknownField = await refund(stack, authorizationId, captureId, { currency: 'USD' }, key());
      expect(unknownField.status).toBe(400);
      expect(await refundedAtProvider(captureId)).toBe('0.00');
      expect((await refund(stack, authorizationId, captureId, {}, key())).status).toBe(200);
      const fullyRefunded = await refund(stack, authorizationId, captureId, {}, key());
      expect(fullyRefunded.status).toBe(409);
      expect(fullyRefunded.data.error.message).toContain('REFUNDED');
    });
  });

  describe('a refund after the lifecycle has closed', () => {
    it('reopens the lifecycle for the refund: one durable, idempotent refund, recorded in its state', async () => {
      const { authorizationId, captureId } = await captured('60.00', { lateEventWindow: '0s' });
      const handle = stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId));
      await eventually(
        async () => (await handle.describe()).status.name,
        (status) => status === 'COMPLETED',
        { what: 'the captured lifecycle to close' },
      );

      const idempotencyKey = key();
      const first = await refund(stack, authorizationId, captureId, { amount: '15.00' }, idempotencyKey);
      expect(first.status).toBe(200);
      expect(first.data).toMatchObject({ status: 'COMPLETED', amount: { value: '15.00' } });
      const description = await handle.describe();
      expect(description.status.name).toBe('RUNNING');
      expect(description.searchAttributes).toMatchObject({
        PaymentStatus: ['PARTIALLY_REFUNDED'],
        AuthorizationId: [authorizationId],
      });
      expect(description.searchAttributes.CaptureIds).toBeUndefined();

      // The retry, through the typed client, answers the same refund; another key refunds the rest.
      const retried = await stack.lifecycles.refund(authorizationId, captureId, {
        amount: '15',
        idempotencyKey,
      });
      expect(retried).toEqual(first.data);
      const rest = await stack.lifecycles.refund(authorizationId, captureId, { idempotencyKey: key() });
      expect(rest.amount).toEqual({ currency_code: 'USD', value: '45.00' });
      expect(await refundedAtProvider(captureId)).toBe('60.00');
      const state = await lifecycleState(authorizationId);
      expect(state).toMatchObject({ status: 'REFUNDED', refundedAmount: '60.00', capturedAmount: '60.00' });
      // The reopened run closes after its late-event window; while a refund's event has not come, the read of
      // the provider for it comes first.
      expect(['close', 'reconcile']).toContain(state.nextTimer?.kind);
    });

    it('answers a retry from the closed run while its key is remembered, without reopening it', async () => {
      const { authorizationId, captureId } = await captured('30.00', { lateEventWindow: '2s' });
      const idempotencyKey = key();
      const first = await refund(stack, authorizationId, captureId, { amount: '3.00' }, idempotencyKey);
      expect(first.status).toBe(200);
      const handle = stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId));
      await eventually(
        async () => (await handle.describe()).status.name,
        (status) => status === 'COMPLETED',
        { what: 'the lifecycle to close after its late-event window' },
      );
      const runBefore = (await handle.describe()).runId;
      const again = await refund(stack, authorizationId, captureId, { amount: '3.00' }, idempotencyKey);
      expect(again.status).toBe(200);
      expect(again.data).toEqual(first.data);
      expect((await handle.describe()).runId).toBe(runBefore);
      expect(await refundedAtProvider(captureId)).toBe('3.00');
    });
  });
});

describe('on PayPal', () => {
  const stack = useLifecycleStack();

  async function captured(value: string) {
    const authorizationId = await stack.startLifecycle(value);
    const capture = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
    expect(capture.status).toBe(200);
    return { authorizationId, captureId: capture.data.id as string };
  }

  async function refundsAtProvider(
    captureId: string,
  ): Promise<Array<{ id: string; amount: { value: string } }>> {
    return (await stack.provider.get(`/sandbox/captures/${captureId}/refunds`)).data.refunds;
  }

  const lifecycleState = async (authorizationId: string) =>
    (await stack.api.get(`/v1/lifecycles/${authorizationId}`)).data;

  /** The provider's refund (or reversal) event for a refund of `captureId`, as the webhook intake signals it. */
  function signalRefundEvent(
    authorizationId: string,
    event: { eventType: PaymentEventKind; captureId: string; refundId: string; value: string },
  ) {
    return stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId)).signal(paymentEventSignal, {
      id: `WH-${randomUUID()}`,
      eventType: event.eventType,
      captureId: event.captureId,
      refundId: event.refundId,
      status: 'COMPLETED',
      amount: { currency_code: 'USD', value: event.value },
    });
  }

  describe('a refund learnt only from a webhook', () => {
    it('whose answer was lost is claimed by the retry under its key only', async () => {
      const { authorizationId, captureId } = await captured('50.00');
      const idempotencyKey = key();
      // The provider refunds on the first attempt and drops every answer, replays included.
      await stack.provider.post('/sandbox/faults', {
        operation: 'refund',
        mode: 'commit-then-drop',
        count: 5,
      });
      expect((await refund(stack, authorizationId, captureId, {}, idempotencyKey)).status).toBe(503);
      const atProvider = await refundsAtProvider(captureId);
      expect(atProvider).toHaveLength(1);
      const made = atProvider[0] as { id: string };
      await signalRefundEvent(authorizationId, {
        eventType: 'capture.refunded',
        captureId,
        refundId: made.id,
        value: '50.00',
      });
      expect((await lifecycleState(authorizationId)).status).toBe('REFUNDED');

      expect((await refund(stack, authorizationId, captureId, {}, key())).status).toBe(409);
      const retried = await refund(stack, authorizationId, captureId, {}, idempotencyKey);
      expect(retried.status).toBe(200);
      expect(retried.data.id).toBe(made.id);
      expect(await refundsAtProvider(captureId)).toHaveLength(1);
      const state = await lifecycleState(authorizationId);
      expect(state.refunds).toEqual([
        expect.objectContaining({ id: made.id, idempotencyKey: `${captureId}/refund/${idempotencyKey}` }),
      ]);
    });

    it('made in the dashboard is never claimed: a reversed capture is refunded to no key', async () => {
      const { authorizationId, captureId } = await captured('50.00');
      const dashboard = await sandboxPaymentsClient(stack.sandbox).refundCapture(
        captureId,
        { amount: { currency_code: 'USD', value: '10.00' } },
        `dashboard-${randomUUID()}`,
      );
      await signalRefundEvent(authorizationId, {
        eventType: 'capture.refunded',
        captureId,
        refundId: dashboard.id,
        value: '10.00',
      });
      await signalRefundEvent(authorizationId, {
        eventType: 'capture.reversed',
        captureId,
        refundId: `RV-${randomUUID()}`,
        value: '40.00',
      });
      expect((await lifecycleState(authorizationId)).status).toBe('REVERSED');
      for (const body of [{}, { amount: '10.00' }, { amount: '1.00' }]) {
        expect((await refund(stack, authorizationId, captureId, body, key())).status).toBe(409);
      }
      expect(await refundsAtProvider(captureId)).toHaveLength(1);
    });
  });
});
