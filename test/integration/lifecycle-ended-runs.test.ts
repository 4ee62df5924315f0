import { randomUUID } from 'node:crypto';
import { lifecycleWorkflowId, type LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { freshKey, useLifecycleStack } from '../helpers/lifecycle-stack';
import { handlerWorkerOptions, startOrdersSide, type OrdersSide } from '../helpers/nexus-stack';

// A lifecycle whose run was ended from outside (terminated through Temporal) reads as ended, with how, through
// the API, the typed client and Nexus, and refuses commands as any ended lifecycle does.

const stack = useLifecycleStack({ worker: handlerWorkerOptions });
let orders: OrdersSide;

beforeAll(async () => {
  orders = await startOrdersSide(stack.taskQueue);
});
afterAll(async () => {
  await orders?.close();
});

/** Every message down the cause chain. */
function messages(error: unknown): string {
  const all: string[] = [];
  for (let cause = error; cause instanceof Error; cause = cause.cause) all.push(cause.message);
  return all.join(' <- ');
}

/** A lifecycle a Nexus caller started (only it sees it), its run then terminated. */
async function terminatedOverNexus(): Promise<string> {
  const { id } = await stack.createAuthorization('25.00');
  const started = await orders.run('callPayments', [
    orders.endpoint,
    'startLifecycle',
    { authorizationId: id },
  ]);
  expect(started.failure).toBeUndefined();
  await stack.client.workflow.getHandle(lifecycleWorkflowId(id)).terminate('an operator ended it');
  return id;
}

describe('a lifecycle whose run was terminated', () => {
  it('reads as ended, with how, and without a timer, in GET and the client', async () => {
    const id = await stack.startLifecycle('25.00');
    const open = (await stack.api.get(`/v1/lifecycles/${id}`)).data as LifecycleState;
    expect(open.runEnded).toBeUndefined();
    expect(open.reauthorizeAt).toBeDefined();

    await stack.client.workflow.getHandle(lifecycleWorkflowId(id)).terminate('an operator ended it');

    const response = await stack.api.get(`/v1/lifecycles/${id}`);
    expect(response.status).toBe(200);
    const state = response.data as LifecycleState;
    expect(state).toMatchObject({ status: 'AUTHORIZED', runEnded: { how: 'TERMINATED' } });
    expect(Date.parse(state.runEnded?.at ?? '')).not.toBeNaN();
    expect(state.reauthorizeAt).toBeUndefined();
    expect(state.nextTimer).toBeUndefined();
    expect(await stack.lifecycles.state(id)).toMatchObject({ runEnded: { how: 'TERMINATED' } });
  });

  it('refuses commands over HTTP as an ended lifecycle, naming how its run ended', async () => {
    const id = await stack.startLifecycle('25.00');
    await stack.client.workflow.getHandle(lifecycleWorkflowId(id)).terminate('an operator ended it');

    const capture = await stack.api.post(`/v1/lifecycles/${id}/capture`, { amount: '5.00' }, freshKey());
    expect(capture.status).toBe(409);
    expect(capture.data).toMatchObject({ error: { code: 'LIFECYCLE_STATE_FORBIDS' } });
    expect(JSON.stringify(capture.data)).toContain('its run was terminated');
    const voided = await stack.api.post(`/v1/lifecycles/${id}/void`, {});
    expect(voided.status).toBe(409);
    expect(await stack.capturesAtProvider(id)).toEqual([]);
  });

  it('reads as ended and refuses commands in the Nexus operations', async () => {
    const id = await terminatedOverNexus();
    const read = await orders.run<LifecycleState>('callPayments', [
      orders.endpoint,
      'state',
      { authorizationId: id },
    ]);
    expect(read.failure).toBeUndefined();
    expect(read.result).toMatchObject({ status: 'AUTHORIZED', runEnded: { how: 'TERMINATED' } });

    const capture = await orders.run('callPayments', [
      orders.endpoint,
      'capture',
      { authorizationId: id, amount: '5.00', idempotencyKey: randomUUID() },
    ]);
    expect(messages(capture.failure)).toContain('its run was terminated');
    expect(await stack.capturesAtProvider(id)).toEqual([]);
  });
});
