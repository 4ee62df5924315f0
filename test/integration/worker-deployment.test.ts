import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import type { ServiceProcess } from '../../src/dev/child-process';
import { bundleBuildId } from '../../src/workers/deployment-version';
import { rollOut } from '../../src/workers/rollout';
import { WorkerDeployment } from '../../src/workers/worker-deployment';
import { eventually } from '../helpers/eventually';
import { startWorkerProcess, temporalAddress, uniqueTaskQueue } from '../helpers/temporal';

// The service's worker process as a version of a Worker Deployment on the dev server, and `npm run
// deploy:rollout`'s steps moving the deployment from one version to the next.

const taskQueue = uniqueTaskQueue('deployment');
const deploymentName = `payments-worker-${randomUUID().slice(0, 8)}`;
const workers: ServiceProcess[] = [];
let connection: Connection;
let deployment: WorkerDeployment;

const startVersion = async (env: Record<string, string> = {}) => {
  const worker = await startWorkerProcess(taskQueue, 'http://127.0.0.1:9', {
    WORKER_VERSIONING: '1',
    TEMPORAL_DEPLOYMENT_NAME: deploymentName,
    ...env,
  });
  workers.push(worker);
  return worker;
};

beforeAll(async () => {
  connection = await Connection.connect({ address: temporalAddress() });
  deployment = new WorkerDeployment(connection, 'default', deploymentName);
});

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
  await connection?.close();
});

it('rolls a deployment from its first version, named by the bundle, to the next', async () => {
  await startVersion();
  const first = bundleBuildId(process.env.TEST_WORKFLOW_BUNDLE as string);
  // The first version of a deployment makes itself current.
  await eventually(
    async () => (await deployment.routing())?.currentBuildId,
    (current) => current === first,
    { timeoutMs: 60_000, intervalMs: 500, what: 'the first version to be current' },
  );

  await startVersion({ TEMPORAL_BUILD_ID: 'v2' });
  await eventually(
    () => deployment.polledTaskQueues('v2'),
    (queues) => queues.includes(taskQueue),
    { timeoutMs: 60_000, intervalMs: 500, what: 'v2 to poll' },
  );
  // A later version does not: it waits for the rollout.
  expect((await deployment.routing())?.currentBuildId).toBe(first);

  const progress: string[] = [];
  const ramps: number[] = [];
  const result = await rollOut(deployment, {
    buildId: 'v2',
    taskQueues: [taskQueue],
    rampSteps: [10, 50],
    stepMs: 200,
    pollersTimeoutMs: 30_000,
    drainTimeoutMs: 0,
    progress: (line) => {
      progress.push(line);
      if (line.startsWith('Ramping')) {
        void deployment.routing().then((routing) => ramps.push(routing?.rampingPercentage ?? -1));
      }
    },
  });

  expect(result).toEqual({ previousBuildId: first, drained: false });
  expect(progress).toEqual(
    expect.arrayContaining([
      `Ramping ${deploymentName}.v2: 10 % of new and auto-upgrading workflow tasks`,
      `Ramping ${deploymentName}.v2: 50 % of new and auto-upgrading workflow tasks`,
      `${deploymentName}.v2 is current; ${deploymentName}.${first} drains`,
    ]),
  );
  expect(ramps).toEqual([10, 50]);
  const routing = await deployment.routing();
  expect(routing).toMatchObject({ currentBuildId: 'v2', rampingPercentage: 0 });
  expect(routing?.rampingBuildId).toBeUndefined();
});

it('refuses to roll out a version no worker polls', async () => {
  await expect(
    rollOut(deployment, {
      buildId: 'never-started',
      taskQueues: [taskQueue],
      rampSteps: [10],
      stepMs: 0,
      pollersTimeoutMs: 1_000,
      drainTimeoutMs: 0,
      pollIntervalMs: 200,
      progress: () => {},
    }),
  ).rejects.toThrow(`${deploymentName}.never-started has no workers polling ${taskQueue}`);
  expect((await deployment.routing())?.currentBuildId).toBe('v2');
});
