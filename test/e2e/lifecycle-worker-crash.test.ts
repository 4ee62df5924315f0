import { randomUUID } from 'node:crypto';
import axios from 'axios';
import type { Client } from '@temporalio/client';
import { createPaymentsActivities } from '../../src/activities/payments';
import { createWebhookActivities } from '../../src/activities/webhooks';
import { LifecycleClient } from '../../src/client/lifecycle-client';
import type { ServiceProcess } from '../../src/dev/child-process';
import { specDialect } from '../../src/providers/paypal/dialects';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import { ensureSubscription } from '../../src/webhooks/ensure-subscription';
import { WEBHOOK_ROUTE } from '../../src/webhooks/listener-url';
import { VerificationStarter } from '../../src/webhooks/verification-starter';
import { lifecycleWorkflowId, stateQuery } from '../../src/workflows/lifecycle/definitions';
import { eventually } from '../helpers/eventually';
import { createSandboxAuthorization, sandboxProvider, startTestApi } from '../helpers/lifecycle-stack';
import { connectClient, runTestWorker, startWorkerProcess, uniqueTaskQueue } from '../helpers/temporal';

// A worker process killed with kill -9 while a capture is in flight; the provider's webhook for that capture
// reaches the lifecycle before the order system retries with its key.

let sandbox: Sandbox;
let client: Client;
let closeClient: () => Promise<void>;
let api: Awaited<ReturnType<typeof startTestApi>>;
let workerProcess: ServiceProcess | undefined;
let worker: { stop: () => Promise<void> } | undefined;
const taskQueue = uniqueTaskQueue('crash');

beforeAll(async () => {
  sandbox = await startSandbox({
    port: 0,
    logger: false,
    deliveryRetry: { attempts: 10, initialDelayMs: 500 },
  });
  ({ client, close: closeClient } = await connectClient());
  api = await startTestApi({
    lifecycles: new LifecycleClient(client, taskQueue),
    webhooks: {
      verifications: new VerificationStarter({ client, taskQueue, mode: 'api' }),
      bodyLimitBytes: 64 * 1024,
      headerNames: specDialect.transmissionHeaders,
    },
  });
  const listenerUrl = `${api.url}${WEBHOOK_ROUTE}`;
  workerProcess = await startWorkerProcess(taskQueue, sandbox.url, { WEBHOOK_LISTENER_URL: listenerUrl });
  await ensureSubscription(client, taskQueue, { listenerUrl });
});

afterAll(async () => {
  await workerProcess?.stop();
  await worker?.stop();
  await api?.app.close();
  await closeClient?.();
  await sandbox?.close();
});

async function startInProcessWorker(listenerUrl: string) {
  const payments = sandboxProvider(sandbox, undefined, undefined, ['localhost', '127.0.0.1']);
  worker = await runTestWorker({
    taskQueue,
    activities: {
      ...createPaymentsActivities(payments),
      ...createWebhookActivities({ provider: payments, listenerUrl }),
    },
  });
}

it('answers the retried capture with the capture its lost first attempt made, captured once', async () => {
  const provider = axios.create({ baseURL: sandbox.url, validateStatus: () => true });
  const authorization = await createSandboxAuthorization(provider, '80.00');
  expect((await api.http.post('/v1/lifecycles', { authorizationId: authorization.id })).status).toBe(201);

  // The provider holds the capture for 2 s before it commits; the worker dies meanwhile.
  await provider.post('/sandbox/faults', { operation: 'capture', mode: 'stall', stallMs: 2_000 });
  const key = randomUUID();
  const capture = () =>
    api.http.post(
      `/v1/lifecycles/${authorization.id}/capture`,
      { amount: '80.00' },
      { headers: { 'idempotency-key': key } },
    );
  const firstAttempt = capture();
  await eventually(
    async () => (await provider.get('/sandbox/faults')).data.faults as unknown[],
    (armed) => armed.length === 0,
    { what: 'the capture to reach the provider' },
  );
  workerProcess?.child.kill('SIGKILL');
  await workerProcess?.exited;
  workerProcess = undefined;

  // The provider commits the capture and delivers its webhook; the API accepts it for verification.
  const captures = async () =>
    (await provider.get(`/sandbox/authorizations/${authorization.id}/captures`)).data.captures as Array<{
      id: string;
    }>;
  expect(
    await eventually(captures, (made) => made.length > 0, { what: 'the capture at the provider' }),
  ).toHaveLength(1);

  await startInProcessWorker(`${api.url}${WEBHOOK_ROUTE}`);
  const handle = client.workflow.getHandle(lifecycleWorkflowId(authorization.id));
  await eventually(
    () => handle.query(stateQuery),
    (state) => (state?.captures.length ?? 0) > 0,
    { timeoutMs: 40_000, what: 'the webhook capture in the lifecycle' },
  );
  // Whatever the first caller was told, its retry with the key answers the capture that was made.
  await firstAttempt;
  const retried = await capture();
  expect(retried.status).toBe(200);
  const [made] = await captures();
  expect(retried.data.id).toBe(made?.id);
  expect(await captures()).toHaveLength(1);
  expect((await handle.query(stateQuery))?.status).toBe('CAPTURED');
});
