import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { loadConfig } from '../src/config';
import { DEFAULT_CLUSTER_DATABASE_URL, freeClusterPorts, startClusterStack } from '../src/dev/cluster/stack';
import { ServiceStartup } from '../src/dev/service-startup';
import type { Authorization } from '../src/providers/resources';
import { startSandbox } from '../src/sandbox/server';
import { WEBHOOK_ROUTE } from '../src/webhooks/listener-url';
import { rollOut } from '../src/workers/rollout';
import { WorkerDeployment } from '../src/workers/worker-deployment';
import { lifecycleWorkflowId, type LifecycleState } from '../src/workflows/lifecycle/definitions';
import {
  failedTasks,
  replayOnV2,
  type HistoryEvent,
  startV2Workers,
  taskBuildIds,
  writeQuickDrainageConfig,
} from '../test/fixtures/lifecycle-v2/deploy';
import { BENCH_RATE_LIMIT } from './api-budgets';
import { bound, capturedStates } from './captured-states';
import { benchEncryption } from './codec';
import { runBounded } from './stats';

// `npm run bench:deploy`: a rolling deploy under load on the cluster topology. Lifecycles start on v1 and
// sleep on their reauthorization timers while a stream of lifecycles is started and captured; v2 (the
// lifecycle of test/fixtures/lifecycle-v2) is deployed beside v1 and rolled out with `npm run deploy:rollout`'s
// steps (ramp, current, drain) while the stream goes on; v1 drains and stops; every sleeping lifecycle then
// reauthorizes and captures on v2. It prints lifecycles per version, the stream's throughput during the
// rollout against before it, the drain's time, and the invariants: failed or timed-out workflow tasks, double
// captures and lost lifecycles (0 each), and whether every history replays on v2. Loopback only; bounded.

const SLEEPING = Number(process.env.BENCH_LIFECYCLES ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const BEFORE_MS = Number(process.env.BENCH_BEFORE_S ?? 30) * 1000;
const RAMP_STEPS = (process.env.BENCH_RAMP ?? '10,50').split(',').map(Number);
const STEP_MS = Number(process.env.BENCH_STEP_S ?? 20) * 1000;
// The sleeping lifecycles' timers fire after the rollout: it must outlast their start, the stream before the
// rollout, v2's start-up, the ramp and the drain.
const REAUTHORIZE_AFTER_S = Number(process.env.BENCH_REAUTHORIZE_AFTER_S ?? 300);
const SETTLE_MS = 300_000;
const TASK_QUEUE = 'payment-authorizations';
// A deployment of its own per run: the databases outlive a run, and with them the deployment's routing.
const DEPLOYMENT = `payments-worker-bench-${randomUUID().slice(0, 8)}`;
const API_KEY = 'bench-key';
const DATA_DIR = join(__dirname, '..', '.data', 'bench-deploy');
const PROCESS_LOG = join(DATA_DIR, 'processes.log');
const V2_BUNDLE = join(DATA_DIR, 'workflow-bundle-v2.js');
const encryption = benchEncryption();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => console.log(line);
const output = (name: string, line: string) => appendFileSync(PROCESS_LOG, `[${name}] ${line}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** A lifecycle of the stream: when its start was sent and when its capture was answered. */
interface Streamed {
  id: string;
  startedAt: number;
  capturedAt: number;
}

/** One workflow id's runs (a refund or chargeback event after the close reopens it in a new run), oldest first. */
interface RunsOf {
  workflowId: string;
  histories: temporal.api.history.v1.IHistory[];
}

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  mkdirSync(DATA_DIR, { recursive: true });
  writeFileSync(PROCESS_LOG, '');
  log(
    `Rolling-deploy benchmark: ${SLEEPING} lifecycles asleep on v1 (reauthorized after ${REAUTHORIZE_AFTER_S} s), ` +
      `a stream at ${CONCURRENCY} in flight, ${BEFORE_MS / 1000} s before the rollout, ramp ${RAMP_STEPS.join(', ')} % ` +
      `each held ${STEP_MS / 1000} s, drainage seen within 5 s (process output in ${PROCESS_LOG})`,
  );
  const sandbox = await startSandbox({ port: 0, logger: false });
  const stack = await startClusterStack({
    config: loadConfig({ TEMPORAL_TASK_QUEUE: TASK_QUEUE }),
    ports: await freeClusterPorts(),
    dataDir: join(DATA_DIR, 'cluster'),
    databaseUrl: process.env.CLUSTER_DATABASE_URL ?? DEFAULT_CLUSTER_DATABASE_URL,
    databasePrefix: 'temporal_bench_deploy',
    ui: false,
    characters: false,
    dynamicConfigFile: writeQuickDrainageConfig(DATA_DIR),
    paymentsBaseUrl: sandbox.url,
    appEnv: {
      API_KEYS: API_KEY,
      ...BENCH_RATE_LIMIT,
      ...encryption.env,
      WORKER_VERSIONING: '1',
      TEMPORAL_DEPLOYMENT_NAME: DEPLOYMENT,
      TEMPORAL_BUILD_ID: 'v1',
    },
    output,
    progress: (line) => log(`  [cluster] ${line}`),
  });
  const v2Workers = new ServiceStartup({ output, progress: () => {} });
  const connection = await Connection.connect({ address: stack.temporalAddress });
  const client = new Client({ connection, dataConverter: encryption.dataConverter });
  let failed = false;
  try {
    failed = await run(stack, sandbox, client, v2Workers);
  } finally {
    await v2Workers.stop();
    await connection.close();
    await stack.stop();
    await sandbox.close();
  }
  if (failed) process.exit(1);
}

async function run(
  stack: Awaited<ReturnType<typeof startClusterStack>>,
  sandbox: Awaited<ReturnType<typeof startSandbox>>,
  client: Client,
  v2Workers: ServiceStartup,
): Promise<boolean> {
  const provider = axios.create({ baseURL: sandbox.url });
  const [api1, api2] = stack.apiUrls.map((baseURL) =>
    axios.create({
      baseURL,
      headers: { authorization: `Bearer ${API_KEY}` },
      timeout: 30_000,
      validateStatus: () => true,
    }),
  ) as [AxiosInstance, AxiosInstance];
  let retried = 0;
  /** Sends until the answer is not "try again" (a 5xx, a time-out, a refused connection), counting each. */
  const untilAnswered = async (send: () => Promise<AxiosResponse>): Promise<AxiosResponse> => {
    const deadline = Date.now() + SETTLE_MS;
    for (;;) {
      const response = await send().catch(() => undefined);
      if (response && response.status < 500) return response;
      retried += 1;
      if (Date.now() > deadline) throw new Error(`no answer in ${SETTLE_MS / 1000} s`);
      await sleep(500);
    }
  };
  const authorize = async () =>
    (
      await provider.post<Authorization>('/sandbox/authorizations', {
        amount: { currency_code: 'USD', value: '25.00' },
      })
    ).data.id;
  const start = async (id: string, options: Record<string, unknown>) => {
    const response = await untilAnswered(() =>
      api1.post('/v1/lifecycles', { authorizationId: id, ...options }),
    );
    if (response.status !== 201 && response.status !== 200)
      throw new Error(`start ${id}: ${response.status} ${JSON.stringify(response.data)}`);
  };
  const capture = async (id: string) => {
    const response = await untilAnswered(() =>
      api2.post(`/v1/lifecycles/${id}/capture`, {}, { headers: { 'idempotency-key': `deploy-${id}` } }),
    );
    if (response.status !== 200)
      throw new Error(`capture ${id}: ${response.status} ${JSON.stringify(response.data)}`);
  };

  const deployment = new WorkerDeployment(client.connection, 'default', DEPLOYMENT);
  for (let i = 0; (await deployment.routing())?.currentBuildId !== 'v1'; i += 1) {
    if (i === 120) throw new Error(`${DEPLOYMENT}.v1 did not become current`);
    await sleep(500);
  }

  // The lifecycles that sleep through the deploy, on v1.
  const sleeping: string[] = [];
  const sleepingFrom = Date.now();
  await runBounded(SLEEPING, 16, async () => {
    const id = await authorize();
    await start(id, { reauthorizeAfter: `${REAUTHORIZE_AFTER_S} seconds`, lateEventWindow: '5 seconds' });
    sleeping.push(id);
  });
  log(`  ${SLEEPING} lifecycles asleep on v1 (load average ${loadavg()[0]?.toFixed(1)})`);

  // The stream: started and captured at once, from before the rollout until v1 has drained.
  const streamed: Streamed[] = [];
  let streaming = true;
  const stream = Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (streaming) {
        const id = await authorize();
        const startedAt = Date.now();
        await start(id, { lateEventWindow: '0 seconds' });
        await capture(id);
        streamed.push({ id, startedAt, capturedAt: Date.now() });
      }
    }),
  );
  const progress = setInterval(() => log(`    … ${streamed.length} streamed`), 15_000);
  const streamFrom = Date.now();
  await sleep(BEFORE_MS);

  const v2From = Date.now();
  await startV2Workers(v2Workers, {
    wiring: {
      temporalAddress: stack.temporalAddress,
      namespace: 'default',
      taskQueue: TASK_QUEUE,
      paymentsBaseUrl: sandbox.url,
      webhookListenerUrl: `${stack.apiUrls[0]}${WEBHOOK_ROUTE}`,
    },
    bundlePath: V2_BUNDLE,
    deploymentName: DEPLOYMENT,
    env: encryption.env,
  });
  const rolloutFrom = Date.now();
  log(`  v2's two workers poll after ${seconds(rolloutFrom - v2From)}; rolling out`);
  let currentAt = 0;
  const result = await rollOut(deployment, {
    buildId: 'v2',
    taskQueues: [TASK_QUEUE],
    rampSteps: RAMP_STEPS,
    stepMs: STEP_MS,
    pollersTimeoutMs: 60_000,
    drainTimeoutMs: 600_000,
    pollIntervalMs: 1_000,
    progress: (line) => {
      if (line.includes(' is current;')) currentAt = Date.now();
      log(`  [rollout] ${line}`);
    },
  }).finally(() => (streaming = false));
  const drainedAt = Date.now();
  await stream;
  clearInterval(progress);
  if (!result.drained) throw new Error('v1 did not drain');
  await stack.stopWorker(0);
  await stack.stopWorker(1);
  log(`  v1 drained; its workers stopped; ${streamed.length} streamed`);
  if (drainedAt > sleepingFrom + REAUTHORIZE_AFTER_S * 1000)
    log(`  note: timers of sleeping lifecycles fired before v1 drained; raise BENCH_REAUTHORIZE_AFTER_S`);

  // Every sleeping lifecycle reauthorizes on v2, then is captured there.
  log('  waiting for the sleeping lifecycles to reauthorize on v2…');
  await runBounded(sleeping.length, 16, async (i) => {
    const id = sleeping[i] as string;
    const deadline = sleepingFrom + REAUTHORIZE_AFTER_S * 1000 + SETTLE_MS;
    while (Date.now() < deadline) {
      const state = await untilAnswered(() => api1.get<LifecycleState>(`/v1/lifecycles/${id}`));
      if ((state.data as LifecycleState).reauthorizations?.length > 0) break;
      await sleep(2_000);
    }
    await capture(id);
  });

  // The books: each lifecycle closes CAPTURED, with one capture at the provider.
  const ids = [...sleeping, ...streamed.map(({ id }) => id)];
  const states = await capturedStates(client, ids, SETTLE_MS);
  await Promise.race([sandbox.deliveriesSettled(), bound(SETTLE_MS)]);
  let doubleCaptures = 0;
  await runBounded(ids.length, 16, async (i) => {
    const id = ids[i] as string;
    const authorizations = new Set([id, states.get(id)?.currentAuthorizationId ?? id]);
    let count = 0;
    for (const authorization of authorizations) {
      const held = await provider.get<{ captures: unknown[] }>(
        `/sandbox/authorizations/${authorization}/captures`,
      );
      count += held.data.captures.length;
    }
    doubleCaptures += Math.max(0, count - 1);
  });
  const lost = ids.filter((id) => !states.has(id));
  const notReauthorized = sleeping.filter((id) => states.get(id)?.reauthorizations.length !== 1);

  // Every run of the deployment, by workflow id (a refund or chargeback event reopens a closed lifecycle in a new
  // run; a long history continues as new).
  const runs = await runsOfDeployment(client);
  const histories = [...runs.values()].flatMap(({ workflowId, histories }) =>
    histories.map((history) => ({ workflowId, history })),
  );
  const failures = histories.flatMap(({ workflowId, history }) =>
    failedTasks(history.events ?? []).map((event) => failedTaskLine(workflowId, history, event, rolloutFrom)),
  );
  // A task that timed out (a stopped worker's sticky queue, a task slower than 10 s) or that met a new event
  // (UNHANDLED_COMMAND) is Temporal's to retry, and is retried; a task the code failed (non-determinism, an
  // error) is a deploy that broke a lifecycle.
  const failedByCode = failures.filter(
    ({ kind }) => kind.startsWith('failed') && !kind.includes('UNHANDLED_COMMAND'),
  );
  const kinds = new Map<string, string[]>();
  for (const { kind, line } of failures) kinds.set(kind, [...(kinds.get(kind) ?? []), line]);
  const replay = await replayOnV2(V2_BUNDLE, encryption.dataConverter, histories);

  const versions = (lifecycles: string[]) => {
    const count = { startedOnV1: 0, startedOnV2: 0, closedOnV1: 0, closedOnV2: 0, missing: 0 };
    for (const id of lifecycles) {
      const builds = runs
        .get(lifecycleWorkflowId(id))
        ?.histories.flatMap((h) => taskBuildIds(h.events ?? []));
      if (!builds?.length) {
        count.missing += 1;
        continue;
      }
      if (builds[0] === 'v1') count.startedOnV1 += 1;
      if (builds[0] === 'v2') count.startedOnV2 += 1;
      if (builds.at(-1) === 'v1') count.closedOnV1 += 1;
      if (builds.at(-1) === 'v2') count.closedOnV2 += 1;
    }
    return count;
  };
  const within = (from: number, to: number) =>
    streamed.filter(({ capturedAt }) => capturedAt >= from && capturedAt < to);
  const perSecond = (from: number, to: number) => (within(from, to).length / (to - from)) * 1000;
  const before = perSecond(streamFrom, v2From);
  const during = perSecond(rolloutFrom, drainedAt);
  const earlierRunsClosed = new Map<string, number>();
  for (const id of ids) {
    for (const history of runs.get(lifecycleWorkflowId(id))?.histories.slice(0, -1) ?? []) {
      const closing = EventType[history.events?.at(-1)?.eventType ?? 0] ?? '?';
      earlierRunsClosed.set(closing, (earlierRunsClosed.get(closing) ?? 0) + 1);
    }
  }

  const rows: Array<[string, string]> = [];
  const perVersion = (label: string, lifecycles: string[]) => {
    const v = versions(lifecycles);
    rows.push([
      `${label}: started on v1 / v2, closed on v1 / v2`,
      `${lifecycles.length}: ${v.startedOnV1} / ${v.startedOnV2}, ${v.closedOnV1} / ${v.closedOnV2}` +
        (v.missing ? ` (${v.missing} not found)` : ''),
    ]);
  };
  perVersion('asleep through the rollout', sleeping);
  perVersion(
    'stream before the rollout',
    streamed.filter(({ startedAt }) => startedAt < rolloutFrom).map(({ id }) => id),
  );
  perVersion(
    'stream during the rollout',
    streamed.filter(({ startedAt }) => startedAt >= rolloutFrom).map(({ id }) => id),
  );
  rows.push(
    ['stream before the rollout (v1 alone), per s', `${before.toFixed(1)}/s`],
    ['stream during the rollout (ramp, current, drain), per s', `${during.toFixed(1)}/s`],
    ['ratio during / before', `${(during / before).toFixed(2)}x`],
    [
      'rollout: ramp, then v2 current → v1 drained',
      `${seconds(currentAt - rolloutFrom)}, ${seconds(drainedAt - currentAt)}`,
    ],
    ['workflow tasks the code failed (goal 0)', `${failedByCode.length} in ${histories.length} runs`],
    [
      'workflow tasks timed out or refused, then retried',
      `${failures.length - failedByCode.length}` +
        (kinds.size ? ` (${[...kinds].map(([kind, lines]) => `${lines.length} ${kind}`).join(', ')})` : ''),
    ],
    ['double captures (goal 0)', String(doubleCaptures)],
    ['lost lifecycles (goal 0)', `${lost.length} of ${ids.length}`],
    ['asleep, not reauthorized once (goal 0)', String(notReauthorized.length)],
    [
      'earlier runs of a lifecycle, by how they closed',
      [...earlierRunsClosed].map(([closing, count]) => `${count} ${closing}`).join(', ') || 'none',
    ],
    ['histories that replay on v2', `${replay.count - replay.failures.length} of ${histories.length}`],
    ['API calls retried (5xx or no answer)', String(retried)],
  );
  log('');
  for (const [label, value] of rows) log(`${label.padEnd(66)}${value}`);
  for (const failure of replay.failures.slice(0, 5)) log(`  replay failure: ${failure}`);
  for (const id of lost.slice(0, 5)) log(`  lost: ${id}`);
  for (const lines of kinds.values()) for (const line of lines.slice(0, 3)) log(`  ${line}`);
  return (
    failedByCode.length > 0 ||
    doubleCaptures > 0 ||
    lost.length > 0 ||
    notReauthorized.length > 0 ||
    replay.failures.length > 0 ||
    replay.count !== histories.length
  );
}

const { EventType, WorkflowTaskFailedCause, TimeoutType, TaskQueueKind } = temporal.api.enums.v1;

/** A failed or timed-out workflow task: its workflow, why, when (from the rollout's start), and on which builds. */
function failedTaskLine(
  workflowId: string,
  history: temporal.api.history.v1.IHistory,
  event: HistoryEvent,
  rolloutFrom: number,
): { kind: string; line: string } {
  const events = history.events ?? [];
  const type = events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '?';
  const failed = event.workflowTaskFailedEventAttributes;
  const kind = failed
    ? `failed: ${WorkflowTaskFailedCause[failed.cause ?? 0]}`
    : `timed out: ${TimeoutType[event.workflowTaskTimedOutEventAttributes?.timeoutType ?? 0]}`;
  const why = failed?.failure?.message ? `${kind} (${failed.failure.message})` : kind;
  const at = Number(event.eventTime?.seconds ?? 0) * 1000 - rolloutFrom;
  const earlier = events.filter((e) => Number(e.eventId) < Number(event.eventId));
  const builds = taskBuildIds(earlier);
  // The task queue the task was scheduled on: a worker's sticky queue, or the deployment's.
  const queue = [...earlier].reverse().find((e) => e.workflowTaskScheduledEventAttributes)
    ?.workflowTaskScheduledEventAttributes?.taskQueue;
  const sticky = queue?.kind === TaskQueueKind.TASK_QUEUE_KIND_STICKY;
  return {
    kind: sticky ? `${kind} on a sticky queue` : kind,
    line:
      `${type} ${workflowId}: workflow task ${why} on ${sticky ? 'sticky ' : ''}queue ${queue?.name}, ` +
      `${seconds(at)} after the rollout began, after tasks on ${builds.join(' ') || 'none'}`,
  };
}

/** Every run whose tasks ran on the bench's deployment, grouped by workflow id, each group oldest first. */
async function runsOfDeployment(client: Client): Promise<Map<string, RunsOf>> {
  const ofDeployment = `TemporalWorkerDeployment = "${DEPLOYMENT}"`;
  // A reopened run closes after its late-event window; visibility follows shortly after.
  for (
    let i = 0;
    (await client.workflow.count(`${ofDeployment} AND ExecutionStatus = "Running"`)).count > 0;
    i++
  ) {
    if (i === 120) throw new Error(`runs of ${DEPLOYMENT} still open after 120 s`);
    await sleep(1_000);
  }
  const listed: Array<{ workflowId: string; runId: string; startTime: Date }> = [];
  for await (const run of client.workflow.list({ query: ofDeployment }))
    listed.push({ workflowId: run.workflowId, runId: run.runId, startTime: run.startTime });
  listed.sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
  const histories = new Map<string, temporal.api.history.v1.IHistory>();
  await runBounded(listed.length, 16, async (i) => {
    const { workflowId, runId } = listed[i] as (typeof listed)[number];
    histories.set(runId, await client.workflow.getHandle(workflowId, runId).fetchHistory());
  });
  const runs = new Map<string, RunsOf>();
  for (const { workflowId, runId } of listed) {
    const entry = runs.get(workflowId) ?? { workflowId, histories: [] };
    entry.histories.push(histories.get(runId) as temporal.api.history.v1.IHistory);
    runs.set(workflowId, entry);
  }
  return runs;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
