import type { TemporalService } from '../../src/dev/cluster/server-config';
import {
  webhookVerificationWorkflowId,
  type WebhookVerificationResult,
} from '../../src/workflows/webhooks/definitions';
import {
  capture,
  completedState,
  createAuthorization,
  deliveriesSettled,
  providerCaptures,
  sleep,
  startClusterHarness,
  startLifecycle,
  type ClusterHarness,
} from './harness';

// On a real Temporal cluster (four server processes on PostgreSQL, two workers, two APIs), its frontend on mTLS
// as production runs it: lifecycles started through API 1 are captured through API 2 while parts of the cluster
// fail. After each: every lifecycle
// completes, the provider holds exactly one capture per capture request, and no webhook delivery is lost.

const LIFECYCLES = Number(process.env.CLUSTER_TEST_LIFECYCLES ?? 8);
// Long enough for a capture's webhook, delayed by a restart, to reach the lifecycle before it completes.
const LATE_EVENT_WINDOW = '20 seconds';

let cluster: ClusterHarness;

beforeAll(async () => {
  cluster = await startClusterHarness({
    tls: true,
    sandbox: { deliveryRetry: { attempts: 10, initialDelayMs: 500, maxDelayMs: 5_000 } },
  });
}, 600_000);

afterAll(async () => {
  await cluster?.close();
});

const log = (line: string) => console.log(`[failover] ${line}`);

async function startLifecycles(count: number, extra: Record<string, unknown> = {}): Promise<string[]> {
  const [api1] = cluster.apis;
  const ids = await Promise.all(Array.from({ length: count }, () => createAuthorization(cluster.provider)));
  await Promise.all(
    ids.map((id) => startLifecycle(api1!, id, { lateEventWindow: LATE_EVENT_WINDOW, ...extra })),
  );
  return ids;
}

/** Captures each lifecycle once through API 2 (retried with its key until answered), `during` meanwhile. */
async function captureDuring(ids: string[], during: () => Promise<void>) {
  const [, api2] = cluster.apis;
  const captures = Promise.all(ids.map((id) => capture(api2!, id, `capture-${id}`)));
  await during();
  return captures;
}

/** What must hold after every failure: completion, one capture per request, every delivery signalled. */
async function expectEveryLifecycleSettled(
  ids: string[],
  deliveriesBefore: number,
  capturedAuthorization = (id: string) => id,
) {
  const states = await Promise.all(ids.map((id) => completedState(cluster.client, id)));
  for (const state of states) expect(state.status).toBe('CAPTURED');
  for (const id of ids) {
    const held = await providerCaptures(cluster.provider, capturedAuthorization(id));
    expect({ id, captures: held.length }).toEqual({ id, captures: 1 });
  }
  for (const state of states) {
    const events = state.recentEvents.filter((event) => event.eventType === 'capture.completed');
    expect({ id: state.authorizationId, completedEvents: events.length }).toEqual({
      id: state.authorizationId,
      completedEvents: 1,
    });
  }
  await deliveriesSettled(cluster.sandbox);
  const ours = new Set(ids.map(capturedAuthorization));
  const deliveries = cluster.sandbox
    .deliveries()
    .slice(deliveriesBefore)
    .filter((delivery) => delivery.eventType.startsWith('PAYMENT.CAPTURE'));
  const lost: string[] = [];
  for (const delivery of deliveries) {
    if (!delivery.delivered)
      lost.push(`${delivery.eventId}: not accepted (${delivery.lastStatus ?? delivery.lastError})`);
    else {
      const result = (await cluster.client.workflow
        .getHandle(webhookVerificationWorkflowId(delivery.transmissionId))
        .result()) as WebhookVerificationResult;
      const authorizationId = result.outcome === 'delivered' ? result.event.authorizationId : undefined;
      if (authorizationId && ours.has(authorizationId)) ours.delete(authorizationId);
      else if (result.outcome !== 'delivered') lost.push(`${delivery.eventId}: ${result.outcome}`);
    }
  }
  expect(lost).toEqual([]);
  expect([...ours]).toEqual([]);
}

async function restartService(service: TemporalService, downMs: number) {
  log(`stopping the ${service} service process`);
  await cluster.stack.temporal.stopService(service);
  await sleep(downMs);
  log(`starting the ${service} service process again`);
  cluster.stack.temporal.startService(service);
}

it('captures through API 2 the lifecycles started through API 1', async () => {
  const before = cluster.sandbox.deliveries().length;
  const ids = await startLifecycles(LIFECYCLES);
  await captureDuring(ids, async () => {});
  await expectEveryLifecycleSettled(ids, before);
});

it('finishes every capture on the other worker when one is killed (-9) mid-capture', async () => {
  const before = cluster.sandbox.deliveries().length;
  const ids = await startLifecycles(LIFECYCLES);
  // Captures stall at the provider, so some are in flight on the worker that dies; the provider still
  // commits them, and the retry on the other worker must get that capture back, not a second one.
  await cluster.provider.post('/sandbox/faults', {
    operation: 'capture',
    mode: 'stall',
    count: 4,
    stallMs: 2_000,
  });
  await captureDuring(ids, async () => {
    await sleep(700);
    log('kill -9 worker 1');
    await cluster.stack.killWorker(0);
  });
  await expectEveryLifecycleSettled(ids, before);
  await cluster.stack.startWorker(0);
});

it.each(['history', 'matching'] as const)(
  'completes every lifecycle when the %s service process stops and starts mid-run',
  async (service) => {
    const before = cluster.sandbox.deliveries().length;
    const ids = await startLifecycles(LIFECYCLES);
    await captureDuring(ids, async () => {
      await sleep(200);
      await restartService(service, 3_000);
    });
    await expectEveryLifecycleSettled(ids, before);
  },
);

it('reauthorizes on the timer that fired while the worker was being restarted', async () => {
  const before = cluster.sandbox.deliveries().length;
  const ids = await startLifecycles(LIFECYCLES, { reauthorizeAfter: '5 seconds' });
  // Both workers go: one crashes, one stops; the timers fire while none runs, and the restarted worker
  // picks them up.
  log('kill -9 worker 1, stop worker 2, during the reauthorization timers');
  await cluster.stack.killWorker(0);
  await cluster.stack.stopWorker(1);
  await sleep(7_000);
  await cluster.stack.startWorker(0);
  await cluster.stack.startWorker(1);
  log('workers back; waiting for the reauthorizations');
  const [, api2] = cluster.apis;
  const reauthorized = new Map<string, string>();
  const deadline = Date.now() + 120_000;
  while (reauthorized.size < ids.length && Date.now() < deadline) {
    for (const id of ids.filter((candidate) => !reauthorized.has(candidate))) {
      const state = (
        await api2!.get<{ reauthorizations: Array<{ toAuthorizationId: string }> }>(`/v1/lifecycles/${id}`)
      ).data;
      const to = state.reauthorizations?.[0]?.toAuthorizationId;
      if (to) reauthorized.set(id, to);
    }
    await sleep(500);
  }
  expect(reauthorized.size).toBe(ids.length);
  await captureDuring(ids, async () => {});
  await expectEveryLifecycleSettled(ids, before, (id) => reauthorized.get(id) as string);
  for (const id of ids) expect(await providerCaptures(cluster.provider, id)).toHaveLength(0);
});
