import type { AxiosInstance } from 'axios';
import { toMinorUnits } from '../../src/currency-decimals';
import type { LinkName } from '../../src/dev/cluster/links';
import type { PaymentCapture } from '../../src/providers/resources';
import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import {
  completedState,
  createAuthorization,
  deliveriesSettled,
  providerCaptures,
  sleep,
  startClusterHarness,
  startLifecycle,
  type ClusterHarness,
} from './harness';

// On the cluster with Toxiproxy on its links (`npm run cluster -- --links`): links fail while every process
// stays up. The worker ↔ frontend link is cut mid-capture, then healed; the provider's answers are held past the
// capture's activity time-out. After each: every lifecycle completes, the provider holds one capture per
// lifecycle and its amount is the lifecycle's captured total, every capture webhook reached its lifecycle, and
// callers saw only answers that say "retry" (503 or 504 with Retry-After), never a 500 or a wrong answer.

const CUT_MS = 20_000;
// The capture runs as a local activity with a 30 s start-to-close time-out (src/workflows/lifecycle/
// activity-options.ts); the provider's HTTP time-out is raised above it so that the activity's own time-out,
// not the HTTP client, is what gives up on an answer held this long.
const ACTIVITY_TIMEOUT_MS = 30_000;
const PROVIDER_DELAY_MS = ACTIVITY_TIMEOUT_MS + 10_000;
const LATE_EVENT_WINDOW = '15 seconds';

let cluster: ClusterHarness;

beforeAll(async () => {
  cluster = await startClusterHarness({
    links: true,
    // Databases of its own: the links' test does not share a cluster's state with another file's.
    databasePrefix: 'temporal_cluster_partitions',
    sandbox: { deliveryRetry: { attempts: 30, initialDelayMs: 500, maxDelayMs: 3_000 } },
    appEnv: { PAYMENTS_TIMEOUT_MS: String(PROVIDER_DELAY_MS + 20_000) },
  });
}, 600_000);

afterAll(async () => {
  await cluster?.close();
});

const log = (line: string) => console.log(`[partitions] ${line}`);

/** What a caller got from one attempt: an HTTP answer, or no answer (its own time-out, a reset). */
interface Attempt {
  status?: number;
  retryAfter?: string;
  error?: string;
}

/** Captures in full with one idempotency key, retried as an order system does; every attempt recorded. */
async function captureRecorded(api: AxiosInstance, id: string, attempts: Attempt[]) {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    try {
      const response = await api.post<PaymentCapture>(
        `/v1/lifecycles/${id}/capture`,
        {},
        { headers: { 'idempotency-key': `capture-${id}` } },
      );
      attempts.push({ status: response.status, retryAfter: response.headers['retry-after'] as string });
      if (response.status < 500) return { status: response.status, capture: response.data, at: Date.now() };
    } catch (error) {
      attempts.push({ error: error instanceof Error ? error.message : String(error) });
    }
    await sleep(500);
  }
  throw new Error(`capture of ${id} not answered within 180 s`);
}

async function startLifecycles(count: number): Promise<string[]> {
  const [api1] = cluster.apis;
  const ids = await Promise.all(Array.from({ length: count }, () => createAuthorization(cluster.provider)));
  await Promise.all(ids.map((id) => startLifecycle(api1!, id, { lateEventWindow: LATE_EVENT_WINDOW })));
  return ids;
}

function minor(value: string): bigint {
  const units = toMinorUnits(value, 'USD');
  if (units === undefined) throw new Error(`not an amount: ${value}`);
  return units;
}

/** Each answer a caller got is final and right, or says when to retry; none is a 500. */
function expectOnlyRetryableFailures(attempts: Attempt[]) {
  const wrong = attempts.filter(
    (attempt) =>
      attempt.status !== undefined &&
      attempt.status !== 200 &&
      !([503, 504].includes(attempt.status) && attempt.retryAfter),
  );
  expect(wrong).toEqual([]);
}

/** After the heal: completion, one capture each whose amount is the captured total, every delivery applied. */
async function expectEverythingSettled(ids: string[], deliveriesBefore: number) {
  const states: LifecycleState[] = await Promise.all(ids.map((id) => completedState(cluster.client, id)));
  for (const state of states) {
    const held = await providerCaptures(cluster.provider, state.authorizationId);
    const heldTotal = held.reduce((sum, capture) => sum + minor(capture.amount?.value ?? '0'), 0n);
    expect({ id: state.authorizationId, status: state.status, captures: held.length }).toEqual({
      id: state.authorizationId,
      status: 'CAPTURED',
      captures: 1,
    });
    expect({ id: state.authorizationId, captured: minor(state.capturedAmount) }).toEqual({
      id: state.authorizationId,
      captured: heldTotal,
    });
    const completed = state.recentEvents.filter((event) => event.eventType === 'capture.completed');
    expect({ id: state.authorizationId, completedEvents: completed.length }).toEqual({
      id: state.authorizationId,
      completedEvents: 1,
    });
  }
  await deliveriesSettled(cluster.sandbox);
  const undelivered = cluster.sandbox
    .deliveries()
    .slice(deliveriesBefore)
    .filter((delivery) => !delivery.delivered)
    .map(
      (delivery) => `${delivery.eventType} ${delivery.eventId}: ${delivery.lastStatus ?? delivery.lastError}`,
    );
  expect(undelivered).toEqual([]);
}

function recoveryFigures(answeredAt: number[], healedAt: number): string {
  const after = answeredAt.filter((at) => at > healedAt).map((at) => at - healedAt);
  if (after.length === 0) return 'no capture was waiting at the heal';
  const sorted = after.sort((a, b) => a - b);
  const p50 = sorted[Math.ceil(sorted.length / 2) - 1] as number;
  return `${after.length} answered after the heal: p50 ${p50} ms, max ${sorted[sorted.length - 1]} ms`;
}

async function cutDuring(link: LinkName, ms: number) {
  log(`cutting ${link} for ${ms / 1000} s`);
  await cluster.stack.links!.cut(link);
  await sleep(ms);
  await cluster.stack.links!.heal(link);
  log(`healed ${link}`);
  return Date.now();
}

it('captures every lifecycle once when the worker ↔ frontend link is cut mid-capture and healed', async () => {
  const [, api2] = cluster.apis;
  const before = cluster.sandbox.deliveries().length;
  const ids = await startLifecycles(12);
  const attempts: Attempt[] = [];
  // Half are being captured as the link goes, half are asked for while it is down.
  const [early, late] = [ids.slice(0, 6), ids.slice(6)];
  const captures = early.map((id) => captureRecorded(api2!, id, attempts));
  await sleep(150);
  const heal = cutDuring('worker-frontend', CUT_MS);
  await sleep(3_000);
  captures.push(...late.map((id) => captureRecorded(api2!, id, attempts)));
  const healedAt = await heal;
  const answers = await Promise.all(captures);
  log(
    recoveryFigures(
      answers.map((answer) => answer.at),
      healedAt,
    ),
  );
  log(`caller attempts: ${JSON.stringify(attempts.map((a) => a.status ?? a.error))}`);
  expect(answers.map((answer) => answer.status)).toEqual(ids.map(() => 200));
  // No worker reaches Temporal while the link is cut: the captures asked for then wait for the heal.
  expect(answers.slice(early.length).filter((answer) => answer.at < healedAt)).toEqual([]);
  for (const [i, answer] of answers.entries()) {
    const held = await providerCaptures(cluster.provider, ids[i]!);
    expect(held.map((capture) => capture.id)).toEqual([answer.capture.id]);
  }
  expectOnlyRetryableFailures(attempts);
  await expectEverythingSettled(ids, before);
});

it('captures once when the provider answers only after the activity timed out', async () => {
  const [, api2] = cluster.apis;
  const links = cluster.stack.links!;
  const before = cluster.sandbox.deliveries().length;
  const ids = await startLifecycles(4);
  const attempts: Attempt[] = [];
  log(`holding the provider's answers ${PROVIDER_DELAY_MS / 1000} s`);
  await links.delay('activities-provider', PROVIDER_DELAY_MS);
  const captures = Promise.all(ids.map((id) => captureRecorded(api2!, id, attempts)));
  // Every first attempt reached the provider, which captured; its answer is still held when the activity times
  // out. The retry, with the same request id, is answered once the link heals.
  await sleep(ACTIVITY_TIMEOUT_MS + 3_000);
  const captured = await Promise.all(ids.map((id) => providerCaptures(cluster.provider, id)));
  expect(captured.map((held) => held.length)).toEqual(ids.map(() => 1));
  await links.heal('activities-provider');
  const healedAt = Date.now();
  const answers = await captures;
  log(
    recoveryFigures(
      answers.map((answer) => answer.at),
      healedAt,
    ),
  );
  log(`caller attempts: ${JSON.stringify(attempts.map((a) => a.status ?? a.error))}`);
  for (const [i, answer] of answers.entries()) {
    expect(answer.status).toBe(200);
    expect(answer.capture.id).toBe(captured[i]![0]!.id);
  }
  expectOnlyRetryableFailures(attempts);
  await expectEverythingSettled(ids, before);
});
