import { randomUUID } from 'node:crypto';
import type { AxiosInstance, AxiosResponse } from 'axios';
import type { Client } from '@temporalio/client';
import { lifecycleWorkflowId, type PaymentEvent } from '../../src/workflows/lifecycle/definitions';

// A busy lifecycle as an order system makes one: many keyed captures of 0.01, one larger capture, then many
// keyed refunds of 0.01 of it, through the HTTP API, sequentially or several in flight. Captures stay well
// under the bound on captures per lifecycle; the refunds carry the lifecycle across its continue-as-new
// boundaries. Each request is sent twice under its key, as an order system retries: the retry must get the
// same answer. Counts are tunable: BUSY_CAPTURES and BUSY_REFUNDS per lifecycle. By default the lifecycle
// takes 500 keys, as many as it keeps answers for, in 1,000 requests.

export type BusyCounts = { captures: number; refunds: number };

export const busyCounts: BusyCounts = {
  captures: Number(process.env.BUSY_CAPTURES ?? 40),
  refunds: Number(process.env.BUSY_REFUNDS ?? 459),
};

/** Fewer keys, enough for five runs and more: 180 keys in 360 requests. */
export const fiveRunsCounts: BusyCounts = { captures: 30, refunds: 150 };

export interface BusyAnswer {
  status: number;
  body: unknown;
}

export interface BusyLifecycleOptions {
  api: AxiosInstance;
  authorizationId: string;
  inFlight: number;
  /** Brings in the provider's event for each answered request, where no webhook delivers it. */
  deliver?: (event: Omit<PaymentEvent, 'id'>) => void;
  /** How many captures of 0.01 and refunds; busyCounts by default. */
  counts?: BusyCounts;
}

/** Runs `count` keyed requests, `inFlight` at a time, each twice; answers every answer. */
async function drive(
  count: number,
  inFlight: number,
  send: () => Promise<AxiosResponse[]>,
): Promise<BusyAnswer[]> {
  const answers: BusyAnswer[] = [];
  let sent = 0;
  const lane = async () => {
    while (sent < count) {
      sent += 1;
      for (const response of await send()) answers.push({ status: response.status, body: response.data });
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return answers;
}

/** Drives the lifecycle and answers every answer, the 20.00 capture's among them. */
export async function driveBusyLifecycle(options: BusyLifecycleOptions): Promise<BusyAnswer[]> {
  const { api, authorizationId, inFlight, deliver, counts = busyCounts } = options;
  // The request and its retry under the same key: a retry answered otherwise counts as unanswered.
  const post = async (path: string, amount: string): Promise<[AxiosResponse, AxiosResponse]> => {
    const headers = { 'idempotency-key': randomUUID() };
    const first = await api.post(path, { amount }, { headers });
    const retry = await api.post(path, { amount }, { headers });
    const same = JSON.stringify(retry.data) === JSON.stringify(first.data) && retry.status === first.status;
    return [first, same ? retry : { ...retry, status: 599, data: { retryAnsweredOtherwise: retry.data } }];
  };

  const capture = async (amount: string) => {
    const answered = await post(`/v1/lifecycles/${authorizationId}/capture`, amount);
    const [response] = answered;
    if (response.status === 200) {
      const { id, amount: captured } = response.data as { id: string; amount: PaymentEvent['amount'] };
      deliver?.({ eventType: 'capture.completed', authorizationId, captureId: id, amount: captured });
    }
    return answered;
  };
  const answers = await drive(counts.captures, inFlight, () => capture('0.01'));
  const [large, largeRetry] = await capture('20.00');
  answers.push(
    { status: large.status, body: large.data },
    { status: largeRetry.status, body: largeRetry.data },
  );
  if (large.status !== 200) return answers;

  const captureId = (large.data as { id: string }).id;
  const refund = async () => {
    const answered = await post(`/v1/lifecycles/${authorizationId}/captures/${captureId}/refund`, '0.01');
    const [response] = answered;
    if (response.status === 200) {
      const { id, amount } = response.data as { id: string; amount: PaymentEvent['amount'] };
      deliver?.({
        eventType: 'capture.refunded',
        captureId,
        refundId: id,
        status: 'COMPLETED',
        amount,
      });
    }
    return answered;
  };
  answers.push(...(await drive(counts.refunds, inFlight, refund)));
  return answers;
}

/** The answers that are not 2xx: none, when every request was answered. */
export const unanswered = (answers: BusyAnswer[]) => answers.filter((answer) => answer.status >= 300);

/** How many runs the lifecycle has had (the first and one per continue-as-new). */
export async function runCount(client: Client, authorizationId: string): Promise<number> {
  let runs = 0;
  const query = `WorkflowId = '${lifecycleWorkflowId(authorizationId)}'`;
  for await (const _run of client.workflow.list({ query })) runs += 1;
  return runs;
}
