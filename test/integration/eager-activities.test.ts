import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { LifecycleClient } from '../../src/client/lifecycle-client';
import type { ServiceProcess } from '../../src/dev/child-process';
import { findFreePort } from '../../src/dev/ports';
import type { Sandbox } from '../../src/sandbox/server';
import { startTestApi } from '../helpers/lifecycle-stack';
import { paypalFixture } from '../helpers/provider-fixtures';
import { connectClient, startWorkerProcess, uniqueTaskQueue } from '../helpers/temporal';

// The dev server hands activities out eagerly (`system.enableActivityEagerExecution`, src/dev/dev-server.ts;
// the cluster and compose read it from deploy/temporal-dynamic-config.yaml): a workflow task that schedules an
// activity on its own task queue gets the activity back in the answer to its completion, without matching.
// A keyed capture's checkpoint is such an activity; the worker's metrics say how each activity task came.

let sandbox: Sandbox;
let client: Client;
let closeClient: () => Promise<void>;
let api: Awaited<ReturnType<typeof startTestApi>>;
let worker: ServiceProcess;
let metricsUrl: string;
const taskQueue = uniqueTaskQueue('eager');

beforeAll(async () => {
  sandbox = await paypalFixture.startSandbox();
  ({ client, close: closeClient } = await connectClient());
  api = await startTestApi({ lifecycles: new LifecycleClient(client, taskQueue) });
  const metricsPort = await findFreePort();
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  worker = await startWorkerProcess(taskQueue, sandbox.url, {
    ...paypalFixture.workerEnv(sandbox),
    WORKER_METRICS_PORT: String(metricsPort),
  });
});

afterAll(async () => {
  await worker?.stop();
  await api?.app.close();
  await closeClient?.();
  await sandbox?.close();
});

/** Activity tasks the worker received, by activity type and whether they came eagerly. */
async function activityTasksReceived(): Promise<Map<string, number>> {
  const text = await (await fetch(metricsUrl)).text();
  const received = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('temporal_activity_task_received_total{')) continue;
    const type = /activity_type="([^"]+)"/.exec(line)?.[1];
    const eager = /eager="([^"]+)"/.exec(line)?.[1];
    received.set(`${type} eager=${eager}`, Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return received;
}

it("a keyed capture's checkpoint comes back with the workflow task that scheduled it", async () => {
  const authorizationId = await paypalFixture.authorize(sandbox, '30.00');
  expect((await api.http.post('/v1/lifecycles', { authorizationId })).status).toBe(201);
  for (const amount of ['10.00', '5.00']) {
    const capture = await api.http.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount, finalCapture: false },
      { headers: { 'idempotency-key': randomUUID() } },
    );
    expect(capture.status).toBe(200);
  }

  const received = await activityTasksReceived();
  expect(received.get('checkpoint eager=true')).toBe(2);
  expect(received.get('checkpoint eager=false') ?? 0).toBe(0);
});
