import { randomUUID } from 'node:crypto';
import axios from 'axios';
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { createProviderActivities } from '../../src/activities/payments';
import { LifecycleClient } from '../../src/client/lifecycle-client';
import { startDevServer, type DevServer } from '../../src/dev/dev-server';
import { findFreePort } from '../../src/dev/ports';
import { resolveTemporalCli } from '../../src/dev/temporal-cli';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import {
  lifecycleWorkflowId,
  paymentEventSignal,
  type LifecycleState,
} from '../../src/workflows/lifecycle/definitions';
import { createSandboxAuthorization, sandboxProvider } from '../helpers/lifecycle-stack';
import { connectClient, runTestWorker, uniqueTaskQueue } from '../helpers/temporal';
import { eventually } from '../helpers/eventually';

// A dev server of its own that suggests continue-as-new after 40 history events, so a lifecycle goes through
// several runs in one test: the state, the answers under idempotency keys and the late-event window's close
// time must all carry over.
const SUGGEST_AFTER_EVENTS = 40;

let server: DevServer;
let sandbox: Sandbox;
let closeClient: () => Promise<void>;
let worker: { stop: () => Promise<void> };
let client: Client;
let lifecycles: LifecycleClient;

beforeAll(async () => {
  const cli = await resolveTemporalCli();
  server = await startDevServer({
    cliPath: cli.path,
    port: await findFreePort(),
    namespace: 'default',
    dynamicConfig: [`limit.historyCount.suggestContinueAsNew=${SUGGEST_AFTER_EVENTS}`],
  });
  sandbox = await startSandbox({ port: 0, logger: false });
  ({ client, close: closeClient } = await connectClient(server.address));
  const taskQueue = uniqueTaskQueue('continue-as-new');
  lifecycles = new LifecycleClient(client, taskQueue);
  worker = await runTestWorker(
    { taskQueue, activities: createProviderActivities(sandboxProvider(sandbox)) },
    server.address,
  );
});

afterAll(async () => {
  await worker?.stop();
  await closeClient?.();
  await sandbox?.close();
  await server?.stop();
});

async function sendEvents(authorizationId: string, count: number): Promise<void> {
  const handle = client.workflow.getHandle(lifecycleWorkflowId(authorizationId));
  for (let i = 0; i < count; i += 1) {
    // An event type the lifecycle records without acting on: it only grows the history.
    await handle.signal(paymentEventSignal, {
      id: `WH-${randomUUID()}`,
      eventType: 'authorization.created',
      authorizationId,
    });
  }
}

async function runIds(authorizationId: string): Promise<string[]> {
  const ids: string[] = [];
  const query = `WorkflowId = '${lifecycleWorkflowId(authorizationId)}'`;
  for await (const run of client.workflow.list({ query })) ids.push(run.runId);
  return ids;
}

it('carries state, answers and the late-event window across continue-as-new', async () => {
  const provider = axios.create({ baseURL: sandbox.url, validateStatus: () => true });
  const { id: authorizationId } = await createSandboxAuthorization(provider, '100.00');
  await lifecycles.start({ authorizationId, lateEventWindow: '15 seconds' });
  const first = await lifecycles.capture(authorizationId, {
    amount: '40.00',
    idempotencyKey: 'first-capture',
  });

  await sendEvents(authorizationId, SUGGEST_AFTER_EVENTS);
  await eventually(
    () => runIds(authorizationId),
    (ids) => ids.length >= 2,
    { what: 'a second run' },
  );
  const carried = (await lifecycles.state(authorizationId)) as LifecycleState;
  expect(carried).toMatchObject({ status: 'PARTIALLY_CAPTURED', capturedAmount: '40.00' });
  expect(carried.seenEventIds.length).toBeGreaterThanOrEqual(SUGGEST_AFTER_EVENTS - 10);

  // In a later run, the key answered in the first run gets its first answer; nothing is captured again.
  expect(
    await lifecycles.capture(authorizationId, { amount: '40.00', idempotencyKey: 'first-capture' }),
  ).toEqual(first);
  await lifecycles.capture(authorizationId, { idempotencyKey: 'final-capture' });
  const ended = (await lifecycles.state(authorizationId)) as LifecycleState;
  expect(ended).toMatchObject({ status: 'CAPTURED', capturedAmount: '100.00', nextTimer: { kind: 'close' } });
  const closeAt = Date.parse(ended.nextTimer!.at);

  // Continued as new during the window, it still closes when the window set at its end says.
  const runsBefore = (await runIds(authorizationId)).length;
  await sendEvents(authorizationId, SUGGEST_AFTER_EVENTS);
  await eventually(
    () => runIds(authorizationId),
    (ids) => ids.length > runsBefore,
    { what: 'a run continued during the window' },
  );
  expect((await lifecycles.state(authorizationId))?.nextTimer).toEqual(ended.nextTimer);
  expect(await lifecycles.capture(authorizationId, { idempotencyKey: 'final-capture' })).toMatchObject({
    status: 'COMPLETED',
  });

  const result = await client.workflow.getHandle(lifecycleWorkflowId(authorizationId)).result();
  expect(Date.now()).toBeGreaterThanOrEqual(closeAt - 1_000);
  expect(result).toMatchObject({ status: 'CAPTURED', capturedAmount: '100.00' });
  const captures = await provider.get(`/sandbox/authorizations/${authorizationId}/captures`);
  expect(captures.data.captures).toHaveLength(2);
});

it('keeps the owner across continue-as-new: the next run is still its owner’s only', async () => {
  const provider = axios.create({ baseURL: sandbox.url, validateStatus: () => true });
  const { id: authorizationId } = await createSandboxAuthorization(provider, '50.00');
  const orders = lifecycles.forOwner('orders');
  const shop = lifecycles.forOwner('shop');
  await orders.start({ authorizationId });
  await sendEvents(authorizationId, SUGGEST_AFTER_EVENTS);
  await eventually(
    () => runIds(authorizationId),
    (ids) => ids.length >= 2,
    { what: 'a second run' },
  );
  expect((await orders.state(authorizationId))?.owner).toBe('orders');
  expect(await shop.state(authorizationId)).toBeNull();
  await expect(shop.capture(authorizationId, { idempotencyKey: 'shop-capture' })).rejects.toThrow(
    WorkflowNotFoundError,
  );
  expect(await orders.capture(authorizationId, { idempotencyKey: 'orders-capture' })).toMatchObject({
    status: 'COMPLETED',
  });
  const captures = await provider.get(`/sandbox/authorizations/${authorizationId}/captures`);
  expect(captures.data.captures).toHaveLength(1);
});
