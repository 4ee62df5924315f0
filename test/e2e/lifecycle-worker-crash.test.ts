import { randomUUID } from 'node:crypto';
import axios from 'axios';
import type { Client } from '@temporalio/client';
import { LifecycleClient } from '../../src/client/lifecycle-client';
import type { ServiceProcess } from '../../src/dev/child-process';
import type { Sandbox } from '../../src/sandbox/server';
import { lifecycleWorkflowId, stateQuery } from '../../src/workflows/lifecycle/definitions';
import { eventually } from '../helpers/eventually';
import { startTestApi } from '../helpers/lifecycle-stack';
import { providerFixtures } from '../helpers/provider-fixtures';
import { connectClient, runTestWorker, startWorkerProcess, uniqueTaskQueue } from '../helpers/temporal';

// A worker process killed with kill -9 while a capture is in flight; the provider's webhook for that capture
// reaches the lifecycle before the order system retries with its key. The same for each provider.

describe.each(providerFixtures)('a $name lifecycle whose worker dies mid-capture', (fixture) => {
  let sandbox: Sandbox;
  let client: Client;
  let closeClient: () => Promise<void>;
  let api: Awaited<ReturnType<typeof startTestApi>>;
  let workerProcess: ServiceProcess | undefined;
  let worker: { stop: () => Promise<void> } | undefined;
  const taskQueue = uniqueTaskQueue(`crash-${fixture.name}`);

  beforeAll(async () => {
    sandbox = await fixture.startSandbox({ deliveryRetry: { attempts: 10, initialDelayMs: 500 } });
    ({ client, close: closeClient } = await connectClient());
    api = await startTestApi({
      lifecycles: new LifecycleClient(client, taskQueue),
      ...fixture.webhookIntake(client, taskQueue),
    });
    const listenerUrl = `${api.url}${fixture.webhookRoute}`;
    workerProcess = await startWorkerProcess(taskQueue, sandbox.url, {
      WEBHOOK_LISTENER_URL: listenerUrl,
      ...fixture.workerEnv(sandbox),
    });
    await fixture.subscribe(sandbox, client, taskQueue, listenerUrl);
  });

  afterAll(async () => {
    await workerProcess?.stop();
    await worker?.stop();
    await api?.app.close();
    await closeClient?.();
    await sandbox?.close();
  });

  it('answers the retried capture with the capture its lost first attempt made, captured once', async () => {
    const control = axios.create({ baseURL: sandbox.url, validateStatus: () => true });
    const authorizationId = await fixture.authorize(sandbox, '80.00');
    expect((await api.http.post('/v1/lifecycles', { authorizationId })).status).toBe(201);

    // The provider holds the capture for 2 s before it commits; the worker dies meanwhile.
    await control.post('/sandbox/faults', { operation: 'capture', mode: 'stall', stallMs: 2_000 });
    const key = randomUUID();
    const capture = () =>
      api.http.post(
        `/v1/lifecycles/${authorizationId}/capture`,
        { amount: '80.00' },
        { headers: { 'idempotency-key': key } },
      );
    const firstAttempt = capture();
    await eventually(
      async () => (await control.get('/sandbox/faults')).data.faults as unknown[],
      (armed) => armed.length === 0,
      { what: 'the capture to reach the provider' },
    );
    workerProcess?.child.kill('SIGKILL');
    await workerProcess?.exited;
    workerProcess = undefined;

    // The provider commits the capture and delivers its webhook; the API accepts it for verification.
    const captured = () => fixture.captured(sandbox, authorizationId);
    const committed = await eventually(captured, (held) => held.captureIds.length > 0, {
      what: 'the capture at the provider',
    });
    expect(committed).toEqual({ captureIds: [expect.any(String)], total: '80.00' });

    worker = await runTestWorker({
      taskQueue,
      activities: fixture.activities(sandbox, `${api.url}${fixture.webhookRoute}`),
    });
    const handle = client.workflow.getHandle(lifecycleWorkflowId(authorizationId));
    await eventually(
      () => handle.query(stateQuery),
      (state) => (state?.captures.length ?? 0) > 0,
      { timeoutMs: 40_000, what: 'the webhook capture in the lifecycle' },
    );
    // Whatever the first caller was told, its retry with the key answers the capture that was made.
    await firstAttempt;
    const retried = await capture();
    expect(retried.status).toBe(200);
    expect(retried.data.id).toBe(committed.captureIds[0]);
    expect(await captured()).toEqual(committed);
    expect((await handle.query(stateQuery))?.status).toBe('CAPTURED');
  });
});
