import axios, { type AxiosInstance } from 'axios';
import type { ServiceProcess } from '../../src/dev/child-process';
import type { PaymentCapture } from '../../src/providers/resources';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import { eventually } from '../helpers/eventually';
import { createSandboxAuthorization, sandboxProvider } from '../helpers/lifecycle-stack';
import { handlerWorkerOptions, startOrdersSide, type OrdersSide } from '../helpers/nexus-stack';
import { runTestWorker, startWorkerProcess, uniqueTaskQueue } from '../helpers/temporal';

// The worker hosting the Nexus handlers is killed with kill -9 while a capture operation is in flight; the
// caller's operation, retried by Temporal under the same request id, completes with the one capture made.

let sandbox: Sandbox;
let provider: AxiosInstance;
let orders: OrdersSide;
let workerProcess: ServiceProcess | undefined;
let worker: { stop: () => Promise<void> } | undefined;
const taskQueue = uniqueTaskQueue('nexus-crash');

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, logger: false });
  provider = axios.create({ baseURL: sandbox.url, validateStatus: () => true });
  workerProcess = await startWorkerProcess(taskQueue, sandbox.url);
  orders = await startOrdersSide(taskQueue);
});

afterAll(async () => {
  await workerProcess?.stop();
  await orders?.close();
  await worker?.stop();
  await sandbox?.close();
});

it('completes the caller’s capture operation with one capture at the provider after kill -9', async () => {
  const authorization = await createSandboxAuthorization(provider, '80.00');
  const started = await orders.run('callPayments', [
    orders.endpoint,
    'startLifecycle',
    { authorizationId: authorization.id },
  ]);
  expect(started.failure).toBeUndefined();

  // The provider holds the capture for 2 s before it commits; the worker dies meanwhile.
  await provider.post('/sandbox/faults', { operation: 'capture', mode: 'stall', stallMs: 2_000 });
  const operation = orders.run<PaymentCapture>('callPayments', [
    orders.endpoint,
    'capture',
    { authorizationId: authorization.id, amount: '80.00' },
  ]);
  await eventually(
    async () => (await provider.get('/sandbox/faults')).data.faults as unknown[],
    (armed) => armed.length === 0,
    { what: 'the capture to reach the provider' },
  );
  workerProcess?.child.kill('SIGKILL');
  await workerProcess?.exited;
  workerProcess = undefined;

  worker = await runTestWorker(handlerWorkerOptions(taskQueue, sandboxProvider(sandbox)));

  const { result, failure } = await operation;
  expect(failure).toBeUndefined();
  const captures = (await provider.get(`/sandbox/authorizations/${authorization.id}/captures`)).data
    .captures as Array<{ id: string }>;
  expect(captures).toHaveLength(1);
  expect(result?.id).toBe(captures[0]?.id);
}, 120_000);
