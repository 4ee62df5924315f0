import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { apiConnectionOptions } from '../../src/api/temporal-connection';
import { LifecycleClient } from '../../src/client/lifecycle-client';
import {
  lifecycleWorkflowId,
  paymentEventSignal,
  type LifecycleState,
} from '../../src/workflows/lifecycle/definitions';
import { freshKey, startTestApi, useLifecycleStack } from '../helpers/lifecycle-stack';
import { eventually } from '../helpers/eventually';
import { providerFixtures } from '../helpers/provider-fixtures';
import { useProviderStack } from '../helpers/provider-stack';

const stack = useLifecycleStack();

function waitForState(
  authorizationId: string,
  done: (state: Record<string, unknown>) => boolean,
): Promise<any> {
  return eventually(
    async () => (await stack.api.get(`/v1/lifecycles/${authorizationId}`)).data as Record<string, unknown>,
    (state) => typeof state.status === 'string' && done(state),
    { what: `the expected state of lifecycle ${authorizationId}` },
  );
}

const key = () => ({ headers: { 'idempotency-key': randomUUID() } });

// What the lifecycle guarantees whatever the provider: once per fixture (test/helpers/provider-fixtures.ts).
describe.each(providerFixtures)('a $name lifecycle through the API', (fixture) => {
  const stack = useProviderStack(fixture);
  const atProvider = (authorizationId: string) => fixture.captured(stack.sandbox, authorizationId);

  function waitFor(authorizationId: string, done: (state: LifecycleState) => boolean) {
    return eventually(
      () => stack.state(authorizationId),
      (state) => typeof state.status === 'string' && done(state),
      { what: `the expected state of lifecycle ${authorizationId}` },
    );
  }

  it('starts with 201 and the state, answers 200 with the same run again, and is found by its search attributes', async () => {
    const authorizationId = await fixture.authorize(stack.sandbox, '25.00');
    const orderId = `order-${randomUUID()}`;
    const first = await stack.api.post('/v1/lifecycles', { authorizationId, orderId });
    expect(first.status).toBe(201);
    expect(first.data).toMatchObject({
      workflowId: lifecycleWorkflowId(authorizationId),
      state: {
        status: 'AUTHORIZED',
        authorizedAmount: '25.00',
        remainingAmount: '25.00',
        orderId,
      },
    });
    const again = await stack.api.post('/v1/lifecycles', { authorizationId });
    expect(again.status).toBe(200);
    expect(again.data.runId).toBe(first.data.runId);
    const { EventType } = temporal.api.enums.v1;
    // A start, and each retry of it, writes nothing to the lifecycle's history but the run's own start.
    const history = await stack.client.workflow
      .getHandle(lifecycleWorkflowId(authorizationId))
      .fetchHistory();
    const types = (history.events ?? []).map((event) => event.eventType);
    expect(types.filter((type) => type === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED)).toHaveLength(1);
    expect(types.filter((type) => type === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)).toEqual(
      [],
    );

    const query = `OrderId = "${orderId}" AND PaymentStatus = "AUTHORIZED" AND PaymentProvider = "${fixture.name}"`;
    const found = await eventually(
      async () => {
        const ids: string[] = [];
        for await (const run of stack.client.workflow.list({ query })) ids.push(run.workflowId);
        return ids;
      },
      (ids) => ids.length > 0,
      { what: 'the run in visibility' },
    );
    expect(found).toEqual([lifecycleWorkflowId(authorizationId)]);
  });

  it('refuses an authorization whose hold has expired with 409', async () => {
    const authorizationId = await fixture.authorize(stack.sandbox, '10.00');
    await fixture.expire(stack.sandbox, authorizationId);
    const response = await stack.api.post('/v1/lifecycles', { authorizationId });
    expect(response.status).toBe(409);
    expect(response.data.error.code).toBe('AUTHORIZATION_NOT_MANAGEABLE');
    expect(response.data.error.message).toContain('EXPIRED');
  });

  it('captures in full once per Idempotency-Key, ends CAPTURED and closes after its late-event window', async () => {
    const authorizationId = await stack.startLifecycle('100.00', { lateEventWindow: '3 seconds' });
    const idempotencyKey = randomUUID();
    const captureOnce = () =>
      stack.api.post(
        `/v1/lifecycles/${authorizationId}/capture`,
        {},
        { headers: { 'idempotency-key': idempotencyKey } },
      );
    const capture = await captureOnce();
    expect(capture.status).toBe(200);
    expect(capture.data).toMatchObject({ status: 'COMPLETED', amount: { value: '100.00' } });

    // Ended, the run stays open for late provider events; a retry still gets the first answer.
    expect(await stack.state(authorizationId)).toMatchObject({
      status: 'CAPTURED',
      nextTimer: { kind: 'close' },
    });
    const retried = await captureOnce();
    expect(retried.status).toBe(200);
    expect(retried.data.id).toBe(capture.data.id);
    expect((await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, key())).status).toBe(409);

    const result = await stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId)).result();
    expect(result).toMatchObject({ status: 'CAPTURED', capturedAmount: '100.00', remainingAmount: '0.00' });
    expect(result.nextTimer).toBeUndefined();

    // Closed, the run answers a retry from its final state.
    const retriedAfterClose = await captureOnce();
    expect(retriedAfterClose.status).toBe(200);
    expect(retriedAfterClose.data.id).toBe(capture.data.id);
    const reusedAfterClose = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount: '1.00' },
      { headers: { 'idempotency-key': idempotencyKey } },
    );
    expect(reusedAfterClose.status).toBe(422);
    expect(reusedAfterClose.data.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await atProvider(authorizationId)).toEqual({ captureIds: [capture.data.id], total: '100.00' });

    // Starting it again answers the lifecycle as it ended; no second run reads the captured authorization.
    const again = await stack.api.post('/v1/lifecycles', { authorizationId });
    expect(again.status).toBe(200);
    expect(again.data.state.status).toBe('CAPTURED');
  });

  it('captures partially, never above what remains', async () => {
    const authorizationId = await stack.startLifecycle('100.00', {}, { severalCaptures: true });
    const first = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount: '30.00' },
      key(),
    );
    expect(first.status).toBe(200);
    expect(await stack.state(authorizationId)).toMatchObject({
      status: 'PARTIALLY_CAPTURED',
      capturedAmount: '30.00',
      remainingAmount: '70.00',
    });

    const tooMuch = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount: '70.01' },
      key(),
    );
    expect(tooMuch.status).toBe(409);
    expect(tooMuch.data.error.message).toMatch(/amount: 70.01 USD is more than the 70.00 that remains/);

    const rest = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount: '70.00' },
      key(),
    );
    expect(rest.status).toBe(200);
    expect((await atProvider(authorizationId)).total).toBe('100.00');
    const state = await waitFor(authorizationId, (s) => s.status === 'CAPTURED');
    expect(state.captures.map((capture) => capture.amount.value)).toEqual(['30.00', '70.00']);
  });

  it('voids the authorization, and a later capture is refused with 409', async () => {
    const authorizationId = await stack.startLifecycle('15.00');
    const voided = await stack.api.post(`/v1/lifecycles/${authorizationId}/void`, {});
    expect(voided.status).toBe(200);
    expect(voided.data).toMatchObject({ id: authorizationId, status: 'VOIDED' });
    const state = await waitFor(authorizationId, (s) => s.status === 'VOIDED');
    expect(state.remainingAmount).toBe('0.00');
    expect((await stack.dashboard.getAuthorization(authorizationId)).status).toBe('VOIDED');
    expect((await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, key())).status).toBe(409);
    expect((await atProvider(authorizationId)).total).toBe('0.00');
  });

  it('completes at once when voided with no late-event window', async () => {
    const authorizationId = await stack.startLifecycle('15.00', { lateEventWindow: '0 seconds' });
    expect((await stack.api.post(`/v1/lifecycles/${authorizationId}/void`, {})).status).toBe(200);
    const result = await stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId)).result();
    expect(result).toMatchObject({ status: 'VOIDED' });
    expect(result.nextTimer).toBeUndefined();
  });

  it('reauthorizes when the timer fires, and the capture after it is made on the new authorization', async () => {
    const authorizationId = await stack.startLifecycle('50.00', { reauthorizeAfter: '2s' });
    const state = await waitFor(authorizationId, (s) => s.reauthorizations.length === 1);
    expect(state.reauthorizations[0]).toMatchObject({ reason: 'timer', amount: { value: '50.00' } });
    const current = state.currentAuthorizationId;
    expect(current).not.toBe(authorizationId);

    const capture = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, key());
    expect(capture.status).toBe(200);
    expect(capture.data.amount.value).toBe('50.00');
    expect(await atProvider(current)).toEqual({ captureIds: [capture.data.id], total: '50.00' });
    expect((await atProvider(authorizationId)).total).toBe('0.00');
  });

  it('applies the expiry policy void: the provider releases the hold', async () => {
    const authorizationId = await stack.startLifecycle('5.00', {
      expiryPolicyAfter: '2s',
      expiryPolicy: 'void',
    });
    await waitFor(authorizationId, (s) => s.status === 'VOIDED');
    expect((await stack.dashboard.getAuthorization(authorizationId)).status).toBe('VOIDED');
  });

  it('applies the expiry policy expire: marked expired, the provider still holds it as it was', async () => {
    const authorizationId = await stack.startLifecycle('5.00', {
      expiryPolicyAfter: '2s',
      expiryPolicy: 'expire',
    });
    await waitFor(authorizationId, (s) => s.status === 'EXPIRED');
    expect((await stack.dashboard.getAuthorization(authorizationId)).status).toBe('CREATED');
  });

  it('records a stale VOIDED for the authorization a reauthorization replaced, without applying it', async () => {
    const authorizationId = await stack.startLifecycle('20.00');
    const reauthorized = await stack.api.post(`/v1/lifecycles/${authorizationId}/reauthorize`, {}, key());
    expect(reauthorized.status).toBe(200);
    await stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId)).signal(paymentEventSignal, {
      id: `WH-${randomUUID()}`,
      eventType: 'authorization.voided',
      authorizationId,
    });
    const state = await waitFor(authorizationId, (s) =>
      s.recentEvents.some((event) => event.authorizationId === authorizationId),
    );
    expect(state).toMatchObject({ status: 'AUTHORIZED', currentAuthorizationId: reauthorized.data.id });
    expect(state.recentEvents).toContainEqual(
      expect.objectContaining({ eventType: 'authorization.voided', authorizationId, applied: false }),
    );
  });

  it('completes a capture asked while no worker runs once a worker is back', async () => {
    const authorizationId = await stack.startLifecycle('60.00');
    await stack.stopWorker();
    const capture = stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, key());
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await stack.startWorker();
    expect((await capture).status).toBe(200);
    await waitFor(authorizationId, (s) => s.status === 'CAPTURED');
    expect((await atProvider(authorizationId)).total).toBe('60.00');
  });
});

// What differs on PayPal, and what involves no provider: on one PayPal stack.
describe('on PayPal', () => {
  it('reauthorizes what remains after a partial capture when the timer fires', async () => {
    const authorizationId = await stack.startLifecycle('50.00', { reauthorizeAfter: '2s' });
    await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, { amount: '20.00' }, freshKey());
    const state = await waitForState(authorizationId, (s) => (s.reauthorizations as unknown[]).length === 1);
    expect(state.reauthorizations[0]).toMatchObject({ reason: 'timer', amount: { value: '30.00' } });
    expect(state.currentAuthorizationId).not.toBe(authorizationId);

    const capture = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
    expect(capture.status).toBe(200);
    expect(capture.data.amount.value).toBe('30.00');
    expect(await stack.capturesAtProvider(state.currentAuthorizationId as string)).toHaveLength(1);
  });

  it('answers 504 with Retry-After to a start no worker reads, and the same start joins it once one does', async () => {
    const authorization = await stack.createAuthorization('25.00');
    await stack.stopWorker();
    try {
      const pending = await stack.api.post('/v1/lifecycles', { authorizationId: authorization.id });
      expect(pending.status).toBe(504);
      expect(pending.headers['retry-after']).toBeDefined();
      expect(pending.data.error).toMatchObject({
        code: 'ANSWER_PENDING',
        message: expect.stringContaining('start it again to join it'),
      });
    } finally {
      await stack.startWorker();
    }
    const joined = await stack.api.post('/v1/lifecycles', { authorizationId: authorization.id });
    expect(joined.status).toBe(200);
    expect(joined.data).toMatchObject({
      workflowId: lifecycleWorkflowId(authorization.id),
      state: { status: 'AUTHORIZED', authorizedAmount: '25.00' },
    });
  });

  it('answers 422 with the provider issue when the provider refuses', async () => {
    const authorization = await stack.createAuthorization('10.00', { intent: 'CAPTURE' });
    expect((await stack.api.post('/v1/lifecycles', { authorizationId: authorization.id })).status).toBe(201);
    const refused = await stack.api.post(`/v1/lifecycles/${authorization.id}/capture`, {}, freshKey());
    expect(refused.status).toBe(422);
    expect(refused.data.error.code).toBe('PROVIDER_REFUSED');
    expect(refused.data.error.details.issue).toMatch(/INTENT/);
    expect(await stack.capturesAtProvider(authorization.id)).toHaveLength(0);
  });

  it('answers 400 naming the bad field', async () => {
    const authorizationId = await stack.startLifecycle('10.00');
    const response = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount: 5 },
      freshKey(),
    );
    expect(response.status).toBe(400);
    expect(response.data.error.code).toBe('VALIDATION_FAILED');
    expect(response.data.error.message).toContain('amount');
    const unknownField = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {
      amonut: '5.00',
    });
    expect(unknownField.status).toBe(400);
    expect(unknownField.data.error.message).toContain('amonut');
  });
});

describe('API errors', () => {
  it('answers 401 without a valid API key', async () => {
    const response = await stack.api.get('/v1/lifecycles/anything', {
      headers: { authorization: 'Bearer wrong' },
    });
    expect(response.status).toBe(401);
    expect(response.data.error.code).toBe('UNAUTHORIZED');
  });

  it('answers 404 for an unknown lifecycle', async () => {
    const response = await stack.api.get(`/v1/lifecycles/${randomUUID()}`);
    expect(response.status).toBe(404);
    expect(response.data.error.code).toBe('NOT_FOUND');
  });

  it('answers 503 when Temporal cannot be reached', async () => {
    const connection = Connection.lazy(apiConnectionOptions({ address: '127.0.0.1:1' }));
    const { app, http } = await startTestApi({
      lifecycles: new LifecycleClient(new Client({ connection }), 'nowhere'),
    });
    try {
      const response = await http.get('/v1/lifecycles/abc');
      expect(response.status).toBe(503);
      expect(response.data.error.code).toBe('TEMPORAL_UNAVAILABLE');
      expect(response.headers['retry-after']).toBe('1');
    } finally {
      await app.close();
    }
  });

  it('serves an OpenAPI document generated from the schemas', async () => {
    const response = await stack.api.get('/openapi.json');
    expect(response.status).toBe(200);
    expect(Object.keys(response.data.paths)).toEqual(
      expect.arrayContaining(['/v1/lifecycles', '/v1/lifecycles/{authorizationId}/capture']),
    );
    const docs = await stack.api.get('/docs/');
    expect(docs.status).toBe(200);
  });
});

describe('the state the API shows', () => {
  it('leaves the workflow bookkeeping out', async () => {
    const authorizationId = await stack.startLifecycle('8.00');
    await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount: '1.00' },
      {
        headers: { 'idempotency-key': randomUUID() },
      },
    );
    const state = (await stack.api.get(`/v1/lifecycles/${authorizationId}`)).data;
    expect(state).toMatchObject({ capturedAmount: '1.00', authorizationCreateTime: expect.any(String) });
    expect(state).not.toHaveProperty('keyedAnswers');
    expect(state).not.toHaveProperty('seenEventIds');
  });
});
