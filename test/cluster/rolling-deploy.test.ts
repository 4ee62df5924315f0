import { mkdirSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { ServiceStartup } from '../../src/dev/service-startup';
import { WEBHOOK_ROUTE } from '../../src/webhooks/listener-url';
import { rollOut, type RolloutResult } from '../../src/workers/rollout';
import { WorkerDeployment } from '../../src/workers/worker-deployment';
import { lifecycleWorkflowId, type LifecycleState } from '../../src/workflows/lifecycle/definitions';
import {
  failedTasks,
  hasV2Change,
  replayOnV2,
  startV2Workers,
  taskBuildIds,
  writeQuickDrainageConfig,
  type HistoryEvent,
} from '../fixtures/lifecycle-v2/deploy';
import { CLOSED_BY_MEMO } from '../fixtures/lifecycle-v2/interceptors';
import { eventually } from '../helpers/eventually';
import { TEST_CODEC_KEYS_ENV, TEST_ENDPOINT_KEYS_ENV, testDataConverter } from '../helpers/temporal';
import {
  capture,
  completedState,
  createAuthorization,
  providerCaptures,
  sleep,
  startClusterHarness,
  startLifecycle,
  untilAnswered,
  type ClusterHarness,
} from './harness';

// On the real cluster: the workers run as version v1 of the `payments-worker` Worker Deployment; lifecycles
// start on v1 and sleep on their reauthorization timers; v2 (a changed lifecycle, test/fixtures/lifecycle-v2)
// is deployed beside it and rolled out with `npm run deploy:rollout`'s steps while more lifecycles start; v1
// drains and stops. Every lifecycle then reauthorizes and captures on v2, which replays v1's history: none
// fails a workflow task, and every history replays on v2's code.

const DEPLOYMENT = 'payments-worker';
const TASK_QUEUE = 'payment-authorizations';
const SLEEPING = Number(process.env.CLUSTER_TEST_LIFECYCLES ?? 6);
const DATA_DIR = join(__dirname, '..', '..', '.data', 'cluster-rolling-deploy');
const V2_BUNDLE = join(DATA_DIR, 'workflow-bundle-v2.js');
// Long enough that the timers sleep through the rollout's ramp; the drain then takes seconds, not minutes.
const REAUTHORIZE_AFTER = '90 seconds';
const lifecycleOptions = { reauthorizeAfter: REAUTHORIZE_AFTER, lateEventWindow: '5 seconds' };

let cluster: ClusterHarness;
const v2Workers = new ServiceStartup({
  output: (name, line) => appendFileSync(join(DATA_DIR, 'v2-workers.log'), `[${name}] ${line}\n`),
  progress: () => {},
});

beforeAll(async () => {
  mkdirSync(DATA_DIR, { recursive: true });
  writeFileSync(join(DATA_DIR, 'v2-workers.log'), '');
  cluster = await startClusterHarness({
    databasePrefix: 'temporal_cluster_deploy',
    dynamicConfigFile: writeQuickDrainageConfig(DATA_DIR),
    appEnv: { WORKER_VERSIONING: '1', TEMPORAL_DEPLOYMENT_NAME: DEPLOYMENT, TEMPORAL_BUILD_ID: 'v1' },
  });
}, 600_000);

afterAll(async () => {
  await v2Workers.stop();
  await cluster?.close();
});

const log = (line: string) => console.log(`[rolling-deploy] ${line}`);

/** Starts version v2's two workers on the lifecycle's changed code. */
async function deployV2(): Promise<void> {
  await startV2Workers(v2Workers, {
    wiring: {
      temporalAddress: cluster.stack.temporalAddress,
      namespace: 'default',
      taskQueue: TASK_QUEUE,
      paymentsBaseUrl: cluster.sandbox.url,
      webhookListenerUrl: `${cluster.stack.apiUrls[0]}${WEBHOOK_ROUTE}`,
    },
    bundlePath: V2_BUNDLE,
    deploymentName: DEPLOYMENT,
    env: { PAYLOAD_CODEC_KEYS: TEST_CODEC_KEYS_ENV, NEXUS_ENDPOINT_KEYS: TEST_ENDPOINT_KEYS_ENV },
  });
}

async function startSleepingLifecycles(count: number): Promise<string[]> {
  const [api1] = cluster.apis;
  const ids = await Promise.all(Array.from({ length: count }, () => createAuthorization(cluster.provider)));
  await Promise.all(ids.map((id) => startLifecycle(api1!, id, lifecycleOptions)));
  return ids;
}

/** Waits until the lifecycle's reauthorization timer has fired and reauthorized. */
async function reauthorized(authorizationId: string): Promise<void> {
  const [api1] = cluster.apis;
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    const response = await untilAnswered(() =>
      api1!.get<LifecycleState>(`/v1/lifecycles/${authorizationId}`),
    );
    if (response.data.reauthorizations.length > 0) return;
    await sleep(2_000);
  }
  throw new Error(`lifecycle ${authorizationId} did not reauthorize within 300 s`);
}

async function historyOf(client: Client, authorizationId: string) {
  return client.workflow.getHandle(lifecycleWorkflowId(authorizationId)).fetchHistory();
}

it('rolls v2 out while lifecycles sleep on v1: each completes on v2, none fails a task, all replay', async () => {
  const deployment = new WorkerDeployment(cluster.client.connection, 'default', DEPLOYMENT);
  expect((await deployment.routing())?.currentBuildId).toBe('v1');

  // On v1: lifecycles that sleep through the deploy, and one that closes before it.
  const sleeping = await startSleepingLifecycles(SLEEPING);
  const [api1, api2] = cluster.apis;
  const closedOnV1 = await createAuthorization(cluster.provider);
  await startLifecycle(api1!, closedOnV1, { lateEventWindow: '0 seconds' });
  await capture(api2!, closedOnV1, `capture-${closedOnV1}`);
  expect((await completedState(cluster.client, closedOnV1)).status).toBe('CAPTURED');
  log(`${SLEEPING} lifecycles sleep on v1 until their reauthorization; one closed on v1`);

  await deployV2();
  const progress: string[] = [];
  const rollout: Promise<RolloutResult> = rollOut(deployment, {
    buildId: 'v2',
    taskQueues: [TASK_QUEUE],
    rampSteps: [10, 50],
    stepMs: 10_000,
    pollersTimeoutMs: 60_000,
    drainTimeoutMs: 240_000,
    progress: (line) => {
      progress.push(line);
      log(line);
    },
  });
  // Traffic through the rollout: lifecycles that sleep, and lifecycles started and captured at once, each on
  // whichever version the ramp routes it to; their webhook verifications are pinned, so v1 drains only once
  // its own have ended.
  let rolling = true;
  const quick: string[] = [];
  const traffic = (async () => {
    while (rolling) {
      const id = await createAuthorization(cluster.provider);
      await startLifecycle(api1!, id, { lateEventWindow: '0 seconds' });
      await capture(api2!, id, `capture-${id}`);
      quick.push(id);
    }
  })();
  await sleep(2_000);
  const startedDuringRamp = await startSleepingLifecycles(2);
  const result = await rollout.finally(() => (rolling = false));
  await traffic;
  log(`${quick.length} lifecycles started and captured during the rollout`);
  expect(quick.length).toBeGreaterThan(0);
  expect(result).toEqual({ previousBuildId: 'v1', drained: true });
  expect(progress).toContain(`${DEPLOYMENT}.v1 is drained: its workers may stop`);
  await cluster.stack.stopWorker(0);
  await cluster.stack.stopWorker(1);
  log('v1 drained; its workers stopped');

  const lifecycles = [...sleeping, ...startedDuringRamp];
  await Promise.all(lifecycles.map((id) => reauthorized(id)));
  await Promise.all(lifecycles.map((id) => capture(api2!, id, `capture-${id}`)));
  for (const id of lifecycles) {
    const state = await completedState(cluster.client, id);
    expect(state.status).toBe('CAPTURED');
    expect(state.reauthorizations).toHaveLength(1);
    // The capture went to the reauthorized authorization, once; the lifecycle's books agree.
    expect(state.currentAuthorizationId).not.toBe(id);
    const captures = await providerCaptures(cluster.provider, state.currentAuthorizationId);
    expect(captures).toHaveLength(1);
    expect(state.captures).toHaveLength(1);
    expect(captures[0]?.amount?.value).toBe(state.capturedAmount);
    const description = await cluster.client.workflow.getHandle(lifecycleWorkflowId(id)).describe();
    expect(description.memo?.[CLOSED_BY_MEMO]).toBe('lifecycle-v2');
  }

  for (const id of quick) {
    expect((await completedState(cluster.client, id)).status).toBe('CAPTURED');
    expect(await providerCaptures(cluster.provider, id)).toHaveLength(1);
  }

  const histories = await Promise.all(
    [...lifecycles, ...quick, closedOnV1].map(async (id) => ({
      id,
      history: await historyOf(cluster.client, id),
    })),
  );
  for (const { id, history } of histories) {
    const events = history.events ?? [];
    expect({ id, failedTasks: failedTasks(events) }).toEqual({ id, failedTasks: [] });
    const builds = taskBuildIds(events);
    log(`${id}: workflow tasks on ${builds.join(' ')}`);
    if (id === closedOnV1) {
      expect(new Set(builds)).toEqual(new Set(['v1']));
      expect(hasV2Change(events)).toBe(false);
    } else if (quick.includes(id)) {
      // v2's change where v2 closed it, not where v1 did.
      expect(hasV2Change(events)).toBe(builds.at(-1) === 'v2');
    } else {
      // Whatever version started it, the lifecycle closed on v2, with v2's change.
      expect(builds.at(-1)).toBe('v2');
      expect(hasV2Change(events)).toBe(true);
    }
  }
  // The lifecycles that slept through the deploy started on v1 and moved to v2 at their next task.
  for (const { id, history } of histories.filter(({ id }) => sleeping.includes(id))) {
    expect({ id, first: taskBuildIds(history.events ?? [])[0] }).toEqual({ id, first: 'v1' });
  }

  // What the Web UI filters on (docs/deploying.md): each lifecycle's version and behaviour in visibility. A
  // lifecycle may have more than one run (a refund or chargeback event reopens a closed one; a long history
  // continues as new): so each lifecycle is looked for by id, on the version its fetched run closed on, and the
  // earlier runs are printed with how they closed.
  const runsById = new Map<string, string[]>();
  for await (const run of cluster.client.workflow.list({
    query: `WorkflowType = "authorizationLifecycle" AND TemporalWorkerDeployment = "${DEPLOYMENT}"`,
  })) {
    runsById.set(run.workflowId, [...(runsById.get(run.workflowId) ?? []), run.status.name]);
  }
  for (const [workflowId, statuses] of runsById) {
    if (statuses.length > 1) log(`${workflowId}: ${statuses.length} runs, ${statuses.join(' ')}`);
  }
  const lifecyclesOn = async (buildId: string): Promise<Set<string>> => {
    const ids = new Set<string>();
    const query =
      `WorkflowType = "authorizationLifecycle" AND TemporalWorkerDeploymentVersion = "${DEPLOYMENT}:${buildId}"` +
      ` AND TemporalWorkflowVersioningBehavior = "AutoUpgrade"`;
    for await (const run of cluster.client.workflow.list({ query })) ids.add(run.workflowId);
    return ids;
  };
  const closedOn = (events: HistoryEvent[]) => taskBuildIds(events).at(-1)!;
  const ours = new Set(histories.map(({ id }) => lifecycleWorkflowId(id)));
  // The cluster starts on empty databases: every lifecycle listed on the deployment is one this test started.
  const { foreign } = await eventually(
    async () => {
      const listed = { v1: await lifecyclesOn('v1'), v2: await lifecyclesOn('v2') };
      return {
        missing: histories
          .filter(
            ({ id, history }) =>
              !listed[closedOn(history.events ?? []) as 'v1' | 'v2']?.has(lifecycleWorkflowId(id)),
          )
          .map(({ id }) => id),
        foreign: [...listed.v1, ...listed.v2].filter((workflowId) => !ours.has(workflowId)),
      };
    },
    ({ missing }) => missing.length === 0,
    {
      timeoutMs: 60_000,
      intervalMs: 1_000,
      what: 'visibility to list each lifecycle on the version it closed on',
    },
  );
  const unaccounted = await Promise.all(
    foreign.map(async (workflowId) => {
      const handle = cluster.client.workflow.getHandle(workflowId);
      const { status, startTime } = await handle.describe();
      const builds = taskBuildIds((await handle.fetchHistory()).events ?? []);
      return `${workflowId}: ${status.name}, started ${startTime.toISOString()}, tasks on ${builds.join(' ')}`;
    }),
  );
  expect(unaccounted).toEqual([]);

  // Each workflow type's declared behaviour (src/workflows/index.ts): the webhook verifications are pinned.
  const verifications = (behaviour: string) =>
    cluster.client.workflow.count(
      `WorkflowType = "webhookVerification" AND TemporalWorkerDeployment = "${DEPLOYMENT}"` +
        ` AND TemporalWorkflowVersioningBehavior = "${behaviour}"`,
    );
  await eventually(
    async () => [(await verifications('Pinned')).count, (await verifications('AutoUpgrade')).count],
    ([pinned, autoUpgrade]) => pinned! >= quick.length && autoUpgrade === 0,
    { timeoutMs: 60_000, intervalMs: 1_000, what: 'every webhook verification pinned' },
  );

  const replay = await replayOnV2(
    V2_BUNDLE,
    testDataConverter,
    histories.map(({ id, history }) => ({ workflowId: lifecycleWorkflowId(id), history })),
  );
  expect(replay.failures).toEqual([]);
  expect(replay.count).toBe(histories.length);
}, 900_000);
