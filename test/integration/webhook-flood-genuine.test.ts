import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { defaultApiLimits } from '../../src/api/limits';
import { LifecycleClient } from '../../src/client/lifecycle-client';
import { specDialect } from '../../src/providers/paypal/dialects';
import { WEBHOOK_ROUTE } from '../../src/webhooks/listener-url';
import { VerificationStarter } from '../../src/webhooks/verification-starter';
import { eventually } from '../helpers/eventually';
import { startTestApi } from '../helpers/lifecycle-stack';
import { providerFixtures } from '../helpers/provider-fixtures';
import { startProviderStack, type ProviderStack } from '../helpers/provider-stack';
import { connectClient, uniqueTaskQueue } from '../helpers/temporal';
import { paypalWebhooks } from '../helpers/webhook-intakes';

// An attacker floods the intake from one address (here the sandbox's own, 127.0.0.1) with junk that no
// provider signed; meanwhile the provider delivers a genuine capture's event. The API runs with the
// configuration's default budgets, not the suites' raised ones.

const FLOOD = 3_000;
const IN_FLIGHT = 50;
const usd = (value: string) => ({ currency_code: 'USD', value });

/** `count` junk deliveries to `url`, `IN_FLIGHT` at a time; `sent` counts those answered so far. */
function flood(url: string, count: number) {
  const statuses: number[] = [];
  let next = 0;
  const sender = async () => {
    while (next < count) {
      next += 1;
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': 'garbled' },
        body: JSON.stringify({ id: `junk-${randomUUID()}` }),
      });
      await answer.arrayBuffer();
      statuses.push(answer.status);
    }
  };
  const done = Promise.all(Array.from({ length: IN_FLIGHT }, sender)).then(() => statuses);
  return { done, sent: () => statuses.length };
}

describe.each(providerFixtures)('$name: a flood of junk from one address', (fixture) => {
  let stack: ProviderStack;
  beforeAll(async () => {
    stack = await startProviderStack(fixture, { limits: defaultApiLimits });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("holds back no genuine delivery: the capture's event is taken on its first attempt", async () => {
    const authorizationId = await stack.startLifecycle('30.00');
    const floodStart = new Date().toISOString();
    const junk = flood(stack.listenerUrl, FLOOD);
    // Past the intake's default budget (WEBHOOK_RATE_LIMIT_MAX) before the provider delivers.
    await eventually(junk.sent, (sent) => sent >= defaultApiLimits.webhookRateLimitMax + 100, {
      what: 'the flood to pass the intake budget',
      intervalMs: 20,
    });
    const capture = await stack.dashboard.captureAuthorization({
      authorizationId,
      amount: usd('30.00'),
      finalCapture: true,
      idempotencyKey: `dashboard-${randomUUID()}`,
    });
    const state = await eventually(
      () => stack.state(authorizationId),
      (s) => s.status === 'CAPTURED',
      { what: 'the capture to reach its lifecycle from its event' },
    );
    expect(state.captures).toEqual([expect.objectContaining({ id: capture.id })]);
    expect(junk.sent()).toBeLessThan(FLOOD);

    const statuses = await junk.done;
    expect(statuses.every((status) => status === 400 || status === 429)).toBe(true);
    // The source's own budget ran out: the rest of its junk was answered 429.
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
    await stack.sandbox.deliveriesSettled();
    const duringFlood = stack.sandbox
      .deliveries()
      .filter((record) => record.url === stack.listenerUrl && record.attempts[0]!.at >= floodStart);
    expect(duringFlood.length).toBeGreaterThan(0);
    for (const record of duringFlood) {
      expect({ event: record.eventType, firstAnswer: record.attempts[0]!.statusCode }).toEqual({
        event: record.eventType,
        firstAnswer: 202,
      });
    }
  });
});

describe("a refused delivery's source", () => {
  let client: Client;
  let closeClient: () => Promise<void>;
  beforeAll(async () => {
    ({ client, close: closeClient } = await connectClient());
  });
  afterAll(async () => {
    await closeClient();
  });

  /** Statuses of header-less deliveries from 127.0.0.1, each claiming another client in X-Forwarded-For. */
  async function refusedStatuses(trustProxy: string[]): Promise<number[]> {
    const taskQueue = uniqueTaskQueue('refusal-budget');
    const api = await startTestApi({
      lifecycles: new LifecycleClient(client, taskQueue),
      webhooks: paypalWebhooks(
        new VerificationStarter({ client, taskQueue, mode: 'api', provider: 'paypal' }),
        specDialect.transmissionHeaders,
      ),
      limits: { ...defaultApiLimits, webhookRefusedRateLimitMax: 3 },
      trustProxy,
    });
    try {
      const statuses: number[] = [];
      for (let n = 1; n <= 5; n += 1) {
        const answer = await api.http.post(WEBHOOK_ROUTE, '{}', {
          headers: {
            'content-type': 'application/json',
            'x-forwarded-for': `198.51.100.${n}`,
            authorization: undefined,
          },
        });
        statuses.push(answer.status);
        if (answer.status === 429) expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
      }
      return statuses;
    } finally {
      await api.app.close();
    }
  }

  it('is the peer when it is not a trusted proxy: a spoofed X-Forwarded-For buys no fresh budget', async () => {
    expect(await refusedStatuses([])).toEqual([400, 400, 400, 429, 429]);
  });

  it('is the first untrusted hop behind a trusted proxy: each client spends its own', async () => {
    expect(await refusedStatuses(['127.0.0.1'])).toEqual([400, 400, 400, 400, 400]);
  });
});
