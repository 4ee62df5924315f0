import { randomUUID } from 'node:crypto';
import type { AxiosResponse } from 'axios';
import {
  lifecycleWorkflowId,
  paymentEventSignal,
  type PaymentEvent,
} from '../../src/workflows/lifecycle/definitions';
import { useLifecycleStack } from '../helpers/lifecycle-stack';

// A busy lifecycle: many keyed captures and refunds through the HTTP API, each followed (as the webhooks
// would) by the provider's event signalled in, so events meet Updates across many continue-as-new boundaries.
// Every answer is the business answer; none is a 5xx. Counts are tunable: BUSY_CAPTURES and BUSY_REFUNDS per
// lifecycle (captures stay well under the bound on captures per lifecycle).
const CAPTURES = Number(process.env.BUSY_CAPTURES ?? 40);
const REFUNDS = Number(process.env.BUSY_REFUNDS ?? 460);
const IN_FLIGHT = 8;

const stack = useLifecycleStack();
jest.setTimeout(240_000);

type Answer = { status: number; body: unknown };

/** Runs `count` requests, `inFlight` at a time, and answers every answer. */
async function drive(
  count: number,
  inFlight: number,
  send: (index: number) => Promise<AxiosResponse>,
): Promise<Answer[]> {
  const answers: Answer[] = [];
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const response = await send(next++);
      answers.push({ status: response.status, body: response.data });
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return answers;
}

/** Sends the provider's event without waiting, as a webhook delivered moments after the answer would. */
function deliver(authorizationId: string, event: Omit<PaymentEvent, 'id'>, delivered: Promise<void>[]): void {
  const handle = stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId));
  delivered.push(handle.signal(paymentEventSignal, { id: `WH-${randomUUID()}`, ...event }));
}

async function runCount(authorizationId: string): Promise<number> {
  let runs = 0;
  const query = `WorkflowId = '${lifecycleWorkflowId(authorizationId)}'`;
  for await (const _run of stack.client.workflow.list({ query })) runs += 1;
  return runs;
}

/** Non-2xx answers, for the failure message. */
const failures = (answers: Answer[]) => answers.filter((answer) => answer.status >= 300);

async function busyLifecycle(inFlight: number): Promise<void> {
  const authorizationId = await stack.startLifecycle('100.00');
  const delivered: Promise<void>[] = [];
  const capture = async (amount: string) => {
    const response = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount },
      { headers: { 'idempotency-key': randomUUID() } },
    );
    if (response.status === 200) {
      const { id, amount: captured } = response.data as { id: string; amount: PaymentEvent['amount'] };
      deliver(
        authorizationId,
        { eventType: 'PAYMENT.CAPTURE.COMPLETED', authorizationId, captureId: id, amount: captured },
        delivered,
      );
    }
    return response;
  };

  const captures = await drive(CAPTURES, inFlight, () => capture('0.01'));
  expect(failures(captures)).toEqual([]);
  const large = await capture('20.00');
  expect(large.status).toBe(200);
  const captureId = (large.data as { id: string }).id;

  const refunds = await drive(REFUNDS, inFlight, async () => {
    const response = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/captures/${captureId}/refund`,
      { amount: '0.01' },
      { headers: { 'idempotency-key': randomUUID() } },
    );
    if (response.status === 200) {
      const { id, amount } = response.data as { id: string; amount: PaymentEvent['amount'] };
      deliver(
        authorizationId,
        { eventType: 'PAYMENT.CAPTURE.REFUNDED', captureId, refundId: id, status: 'COMPLETED', amount },
        delivered,
      );
    }
    return response;
  });
  expect(failures(refunds)).toEqual([]);
  await Promise.all(delivered);

  // Four continue-as-new boundaries at least: five runs.
  expect(await runCount(authorizationId)).toBeGreaterThanOrEqual(5);
  const state = (await stack.lifecycles.state(authorizationId))!;
  expect(state.captures).toHaveLength(CAPTURES + 1);
  expect(state.refunds).toHaveLength(REFUNDS);
}

it('answers every sequential keyed capture and refund on a busy lifecycle', () => busyLifecycle(1));

it(`answers every keyed capture and refund on a busy lifecycle with ${IN_FLIGHT} in flight`, () =>
  busyLifecycle(IN_FLIGHT));
