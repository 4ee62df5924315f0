import { randomUUID } from 'node:crypto';
import { defaultApiLimits, type ApiLimits } from '../../src/api/limits';
import { WEBHOOK_ROUTE } from '../../src/webhooks/listener-url';
import { eventually } from '../helpers/eventually';
import { uniqueTaskQueue } from '../helpers/temporal';
import { startWebhookStack, type SignedDelivery, type WebhookStack } from '../helpers/webhook-stack';

// A forged flood: 300 deliveries from one sender, sent 30 at a time. Each API starts its runs on a task queue
// of its own that no worker polls, so the runs it started are exactly the workflows on that queue.
const FLOOD = 300;

let stack: WebhookStack;
beforeAll(async () => {
  stack = await startWebhookStack();
});
afterAll(async () => {
  await stack?.close();
});

/** Signed with the sandbox's certificate URL, then its body changed: the signature no longer matches. */
function forged(): SignedDelivery {
  const body = JSON.stringify({ id: `WH-${randomUUID()}`, event_type: 'PAYMENT.SALE.COMPLETED' });
  const delivery = stack.sign(body);
  return { ...delivery, body: body.replace('SALE', 'CAPTURE') };
}

async function flood(mode: 'api' | 'local', limits: Partial<ApiLimits>) {
  const taskQueue = uniqueTaskQueue(`flood-${mode}`);
  const api = await stack.startApi({
    taskQueue,
    mode,
    limits: { ...defaultApiLimits, rateLimitWindowMs: 10 * 60_000, ...limits },
  });
  const deliveries = Array.from({ length: FLOOD }, forged);
  const statuses: number[] = [];
  try {
    for (let i = 0; i < FLOOD; i += 30) {
      const answers = await Promise.all(
        deliveries.slice(i, i + 30).map((delivery) =>
          api.http.post(WEBHOOK_ROUTE, Buffer.from(delivery.body), {
            headers: { ...delivery.headers, authorization: undefined },
            transformRequest: (data: unknown) => data,
          }),
        ),
      );
      statuses.push(...answers.map((answer) => answer.status));
    }
  } finally {
    await api.app.close();
  }
  const started = () => stack.client.workflow.count(`TaskQueue = '${taskQueue}'`).then(({ count }) => count);
  const tally = (status: number) => statuses.filter((answer) => answer === status).length;
  return { deliveries, statuses, started, tally };
}

describe('a forged flood', () => {
  it("starts no workflow in local mode: refused 400 by its signature, then 429 past its source's refusals", async () => {
    const { deliveries, tally, started } = await flood('local', { webhookRateLimitMax: 1_000 });
    const refusals = defaultApiLimits.webhookRefusedRateLimitMax;
    expect(tally(400)).toBe(refusals);
    expect(tally(429)).toBe(FLOOD - refusals);
    for (const delivery of deliveries) {
      expect(await stack.verificationExists(delivery.transmissionId)).toBe(false);
    }
    expect(await started()).toBe(0);
  });

  it("is bounded by the provider's budget in api mode: 50 runs start, the other 250 deliveries get 429", async () => {
    const { tally, started } = await flood('api', { webhookRateLimitMax: 50 });
    expect(tally(202)).toBe(50);
    expect(tally(429)).toBe(FLOOD - 50);
    expect(await eventually(started, (count) => count >= 50, { what: '50 runs listed' })).toBe(50);
  });

  it('is bounded per source in api mode: one address starts at most its budget of runs to verify remotely', async () => {
    const { tally, started } = await flood('api', {
      webhookRateLimitMax: 1_000,
      webhookRemoteVerifyRateLimitMax: 40,
    });
    expect(tally(202)).toBe(40);
    expect(tally(429)).toBe(FLOOD - 40);
    expect(await eventually(started, (count) => count >= 40, { what: '40 runs listed' })).toBe(40);
  });
});
