import { randomUUID } from 'node:crypto';
import type { PaymentsDialectName } from '../../src/providers/paypal/dialects';
import type { LifecycleState } from '../../src/workflows/lifecycle/definitions';
import { eventually } from '../helpers/eventually';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';
import { freshKey } from '../helpers/lifecycle-stack';

// The lifecycle and its webhooks end to end against the sandbox in both of its modes, the service speaking
// the mode's dialect: what passes against the spec mode must pass against PayPal's contract too.

describe.each<PaymentsDialectName>(['spec', 'paypal'])('against the sandbox in %s mode', (mode) => {
  let stack: WebhookStack;
  beforeAll(async () => {
    stack = await startWebhookStack({ mode });
  });
  afterAll(async () => {
    await stack?.close();
  });
  afterEach(async () => {
    await stack.provider.delete('/sandbox/faults');
  });

  async function startLifecycle(value: string, body: Record<string, unknown> = {}): Promise<string> {
    const authorization = await stack.createAuthorization(value);
    const started = await stack.api.post('/v1/lifecycles', { authorizationId: authorization.id, ...body });
    if (started.status !== 201) throw new Error(`lifecycle not started: ${JSON.stringify(started.data)}`);
    return authorization.id;
  }

  const waitForState = (authorizationId: string, done: (state: LifecycleState) => boolean) =>
    eventually(
      async () => (await stack.api.get(`/v1/lifecycles/${authorizationId}`)).data as LifecycleState,
      (state) => typeof state.status === 'string' && done(state),
      { what: `the expected state of lifecycle ${authorizationId}` },
    );

  const dropNextAnswer = (operation: string) =>
    stack.provider.post('/sandbox/faults', { operation, mode: 'commit-then-drop', count: 1 });

  it('captures partially, then the rest, and applies the signed capture events the provider delivers', async () => {
    const authorizationId = await startLifecycle('100.00');
    const key = { headers: { 'idempotency-key': randomUUID() } };
    const first = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, { amount: '30.00' }, key);
    expect(first.status).toBe(200);
    expect(first.data).toMatchObject({ status: 'COMPLETED', amount: { value: '30.00' } });
    const rest = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
    expect(rest.data).toMatchObject({ status: 'COMPLETED', amount: { value: '70.00' } });
    const state = await waitForState(
      authorizationId,
      (s) =>
        s.status === 'CAPTURED' &&
        s.recentEvents.filter((event) => event.eventType === 'capture.completed').length === 2,
    );
    expect(state.captures.map((capture) => capture.amount.value)).toEqual(['30.00', '70.00']);
  });

  it('a void Update whose answer was lost succeeds, and the authorization is voided once', async () => {
    const authorizationId = await startLifecycle('15.00');
    await dropNextAnswer('void');
    const voided = await stack.api.post(`/v1/lifecycles/${authorizationId}/void`, {});
    expect(voided.status).toBe(200);
    expect(voided.data).toMatchObject({ id: authorizationId, status: 'VOIDED' });
    await waitForState(authorizationId, (s) => s.status === 'VOIDED');
    expect((await stack.payments.getAuthorization(authorizationId)).status).toBe('VOIDED');
  });

  it('a reauthorize Update whose answer was lost makes one new authorization', async () => {
    const authorizationId = await startLifecycle('40.00');
    await dropNextAnswer('reauthorize');
    const reauthorized = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/reauthorize`,
      {},
      { headers: { 'idempotency-key': randomUUID() } },
    );
    expect(reauthorized.status).toBe(200);
    expect(reauthorized.data).toMatchObject({ status: 'CREATED', amount: { value: '40.00' } });
    const state = await waitForState(authorizationId, (s) => s.reauthorizations.length === 1);
    expect(state.currentAuthorizationId).toBe(reauthorized.data.id);
    const links = (await stack.payments.getAuthorization(authorizationId)).links ?? [];
    expect(links.filter((link) => link.rel === 'reauthorization')).toHaveLength(1);
  });

  it('reauthorizes on its timer and records the new authorization, not a failure', async () => {
    const authorizationId = await startLifecycle('50.00', { reauthorizeAfter: '2s' });
    const state = await waitForState(authorizationId, (s) => s.reauthorizations.length === 1);
    expect(state.reauthorizations[0]).toMatchObject({ reason: 'timer', amount: { value: '50.00' } });
    expect(state.reauthorizationFailure).toBeUndefined();
    const capture = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
    expect(capture.data).toMatchObject({ status: 'COMPLETED', amount: { value: '50.00' } });
  });

  it('refuses to manage an authorization that has expired', async () => {
    const authorization = await stack.createAuthorization('10.00');
    await stack.provider.post(`/sandbox/authorizations/${authorization.id}/expire`);
    const refused = await stack.api.post('/v1/lifecycles', { authorizationId: authorization.id });
    expect(refused.status).toBe(409);
    expect(refused.data.error.code).toBe('AUTHORIZATION_NOT_MANAGEABLE');
  });
});
