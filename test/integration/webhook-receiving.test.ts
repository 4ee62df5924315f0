import { clearKeyCaller } from '../../src/api-callers';
import { createPaymentsWorkerActivities } from '../../src/activities';
import axios from 'axios';
import { Client, Connection } from '@temporalio/client';
import { buildApi } from '../../src/api/server';
import { apiConnectionOptions } from '../../src/api/temporal-connection';
import { LifecycleClient } from '../../src/client/lifecycle-client';
import { specDialect } from '../../src/providers/paypal/dialects';
import { EMPTY_DELIVERY_BODY_MESSAGE } from '../../src/providers/webhook-delivery';
import { findFreePort } from '../../src/dev/ports';
import { VerificationStarter } from '../../src/webhooks/verification-starter';
import {
  webhookVerificationWorkflowId,
  type WebhookVerificationResult,
} from '../../src/workflows/webhooks/definitions';
import { PaymentEventRoutingKey, WebhookVerificationKey } from '../../src/workflows/search-attributes';
import { WEBHOOK_ROUTE } from '../../src/webhooks/listener-url';
import { uniqueTaskQueue, withWorker } from '../helpers/temporal';
import {
  BODY_LIMIT_BYTES,
  startWebhookStack,
  voidedEvent,
  type WebhookStack,
} from '../helpers/webhook-stack';
import { freshKey } from '../helpers/lifecycle-stack';
import { paypalWebhooks } from '../helpers/webhook-intakes';

let stack: WebhookStack;

beforeAll(async () => {
  stack = await startWebhookStack();
});
afterAll(async () => {
  await stack?.close();
});

describe('POST /webhooks/payments refuses what cannot be verified, and starts nothing', () => {
  it('answers an empty body with 400 and the spec message', async () => {
    const delivery = { ...stack.sign('{}'), body: '' };
    const response = await stack.deliver(delivery);
    expect(response.status).toBe(400);
    expect(response.data.error).toMatchObject({
      code: 'WEBHOOK_DELIVERY_INVALID',
      message: EMPTY_DELIVERY_BODY_MESSAGE,
    });
    expect(await stack.verificationExists(delivery.transmissionId)).toBe(false);
  });

  it('answers malformed JSON with 400', async () => {
    const delivery = stack.sign('{"id": "WH-1", "event_type": ');
    const response = await stack.deliver(delivery);
    expect(response.status).toBe(400);
    expect(response.data.error.message).toContain('not well-formed JSON');
    expect(await stack.verificationExists(delivery.transmissionId)).toBe(false);
  });

  it('answers a body over the limit with 413', async () => {
    const delivery = stack.sign(JSON.stringify({ padding: 'x'.repeat(BODY_LIMIT_BYTES) }));
    const response = await stack.deliver(delivery);
    expect(response.status).toBe(413);
    expect(response.data.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await stack.verificationExists(delivery.transmissionId)).toBe(false);
  });

  it('answers missing SERVICE-* headers with 400 naming them', async () => {
    const delivery = stack.sign('{"id":"WH-2"}');
    delete delivery.headers['SERVICE-TRANSMISSION-SIG'];
    delete delivery.headers['SERVICE-CERT-URL'];
    const response = await stack.deliver(delivery);
    expect(response.status).toBe(400);
    expect(response.data.error.message).toBe(
      'missing delivery headers: SERVICE-CERT-URL, SERVICE-TRANSMISSION-SIG',
    );
    expect(response.data.error.details).toEqual({
      missing: ['SERVICE-CERT-URL', 'SERVICE-TRANSMISSION-SIG'],
    });
    expect(await stack.verificationExists(delivery.transmissionId)).toBe(false);
  });

  it('answers 503 when Temporal cannot be reached, so the provider delivers again', async () => {
    const connection = Connection.lazy(
      apiConnectionOptions({ address: `127.0.0.1:${await findFreePort()}` }),
    );
    const client = new Client({ connection });
    const app = await buildApi({
      lifecycles: new LifecycleClient(client, stack.taskQueue),
      callers: [clearKeyCaller(['unused'])],
      defaults: { reauthorizeAfter: '3 days', expiryPolicy: 'void', lateEventWindow: '3 days' },
      logger: false,
      webhooks: paypalWebhooks(
        new VerificationStarter({
          client,
          taskQueue: stack.taskQueue,
          mode: 'api',
          provider: 'paypal',
          startTimeoutMs: 1_000,
        }),
        specDialect.transmissionHeaders,
        { bodyLimitBytes: BODY_LIMIT_BYTES },
      ),
    });
    try {
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      const delivery = stack.sign('{"id":"WH-3"}');
      const response = await axios.post(`${url}/webhooks/payments`, delivery.body, {
        headers: delivery.headers,
        validateStatus: () => true,
      });
      expect(response.status).toBe(503);
      expect(response.data.error.code).toBe('TEMPORAL_UNAVAILABLE');
    } finally {
      await app.close();
      await connection.close();
    }
  });
});

describe('provider deliveries reach the lifecycles, verified', () => {
  it('a capture makes the sandbox deliver PAYMENT.CAPTURE.COMPLETED, which the lifecycle applies', async () => {
    const authorizationId = await stack.startLifecycle('100.00', { capture_status: 'PENDING' });
    const capture = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount: '40.00' },
      freshKey(),
    );
    expect(capture.status).toBe(200);
    expect(capture.data.status).toBe('PENDING');

    // The bank settles it: the sandbox completes the capture and delivers the event to the listener.
    await stack.provider.post(`/sandbox/captures/${capture.data.id}/complete`);
    await stack.sandbox.deliveriesSettled();
    const delivery = stack.sandbox
      .deliveries()
      .find(
        (record) => record.eventType === 'PAYMENT.CAPTURE.COMPLETED' && record.webhookId === stack.webhookId,
      );
    expect(delivery).toMatchObject({ delivered: true, lastStatus: 202 });

    const result = await stack.verification(delivery!.transmissionId);
    expect(result).toMatchObject({
      outcome: 'delivered',
      verification: 'SUCCESS',
      webhookId: stack.webhookId,
      lifecycleWorkflowId: `authorization-${authorizationId}`,
      event: { id: delivery!.eventId, authorizationId, captureId: capture.data.id },
    });
    const state = await stack.lifecycleState(authorizationId);
    expect(state.captures).toEqual([expect.objectContaining({ id: capture.data.id, status: 'COMPLETED' })]);
    expect(state.status).toBe('PARTIALLY_CAPTURED');
    expect(state.recentEvents).toContainEqual(
      expect.objectContaining({
        id: delivery!.eventId,
        eventType: 'capture.completed',
        applied: true,
      }),
    );
  });

  it('a tampered signature is rejected: FAILURE, and no signal', async () => {
    const authorizationId = await stack.startLifecycle('10.00');
    const genuine = stack.sign(voidedEvent(authorizationId));
    const sig = genuine.headers['SERVICE-TRANSMISSION-SIG']!;
    const tampered = {
      ...genuine,
      headers: { ...genuine.headers, 'SERVICE-TRANSMISSION-SIG': `${sig[1]}${sig[0]}${sig.slice(2)}` },
    };
    expect((await stack.deliver(tampered)).status).toBe(202);
    const result = await stack.verification(tampered.transmissionId);
    expect(result).toMatchObject({ outcome: 'rejected', verification: 'FAILURE' });
    const described = await stack.client.workflow
      .getHandle(webhookVerificationWorkflowId(tampered.transmissionId))
      .describe();
    expect(described.typedSearchAttributes.get(WebhookVerificationKey)).toBe('FAILURE');
    expect(await stack.signalsTo(authorizationId)).toBe(0);
    expect((await stack.lifecycleState(authorizationId)).status).toBe('AUTHORIZED');

    // The same event, signed as sent, is applied: the rejection above was the signature's doing.
    const honest = stack.sign(genuine.body);
    expect((await stack.deliver(honest)).status).toBe(202);
    expect(await stack.verification(honest.transmissionId)).toMatchObject({ outcome: 'delivered' });
    expect(await stack.signalsTo(authorizationId)).toBe(1);
  });

  it('the same delivery twice is answered 202 twice and signals once', async () => {
    const authorizationId = await stack.startLifecycle('10.00');
    const delivery = stack.sign(voidedEvent(authorizationId));
    const first = await stack.deliver(delivery);
    expect(await stack.verification(delivery.transmissionId)).toMatchObject({ outcome: 'delivered' });
    const second = await stack.deliver(delivery);
    expect([first.status, second.status]).toEqual([202, 202]);
    expect([first.data.status, second.data.status]).toEqual(['accepted', 'duplicate']);
    expect(await stack.signalsTo(authorizationId)).toBe(1);
    expect(await stack.lifecycleState(authorizationId)).toMatchObject({
      status: 'VOIDED',
      nextTimer: { kind: 'close' },
    });
  });

  it('the same event in another transmission reaches the lifecycle, which skips it as already delivered', async () => {
    const authorizationId = await stack.startLifecycle('10.00');
    const body = voidedEvent(authorizationId);
    const eventId = JSON.parse(body).id as string;
    for (const delivery of [stack.sign(body), stack.sign(body)]) {
      expect((await stack.deliver(delivery)).data.status).toBe('accepted');
      expect(await stack.verification(delivery.transmissionId)).toMatchObject({ outcome: 'delivered' });
    }
    expect(await stack.signalsTo(authorizationId)).toBe(2);
    const state = await stack.lifecycleState(authorizationId);
    expect(state.status).toBe('VOIDED');
    expect(state.recentEvents.filter((event) => event.id === eventId)).toEqual([
      expect.objectContaining({ applied: true }),
    ]);
  });

  it('an event after the lifecycle ended is recorded by it during its late-event window', async () => {
    const authorizationId = await stack.startLifecycle('20.00');
    const capture = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
    expect(capture.status).toBe(200);
    expect((await stack.lifecycleState(authorizationId)).status).toBe('CAPTURED');

    // The provider's PAYMENT.CAPTURE.COMPLETED for the capture that ended the lifecycle arrives afterwards.
    await stack.sandbox.deliveriesSettled();
    const routed: WebhookVerificationResult[] = [];
    for (const record of stack.sandbox.deliveries()) {
      if (record.eventType !== 'PAYMENT.CAPTURE.COMPLETED' || record.webhookId !== stack.webhookId) continue;
      const result = await stack.verification(record.transmissionId);
      if (result.outcome === 'delivered' && result.event.captureId === capture.data.id) routed.push(result);
    }
    expect(routed).toEqual([
      expect.objectContaining({ lifecycleWorkflowId: `authorization-${authorizationId}` }),
    ]);
    const state = await stack.lifecycleState(authorizationId);
    expect(state.recentEvents).toContainEqual(
      expect.objectContaining({ eventType: 'capture.completed', authorizationId }),
    );
  });

  it('a stale PAYMENT.AUTHORIZATION.VOIDED for the old id after a reauthorization is ignored', async () => {
    const authorizationId = await stack.startLifecycle('50.00');
    const reauthorized = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/reauthorize`,
      {},
      freshKey(),
    );
    expect(reauthorized.status).toBe(200);
    const stale = stack.sign(voidedEvent(authorizationId));
    expect((await stack.deliver(stale)).status).toBe(202);
    expect(await stack.verification(stale.transmissionId)).toMatchObject({ outcome: 'delivered' });

    const state = await stack.lifecycleState(authorizationId);
    expect(state.status).toBe('AUTHORIZED');
    expect(state.currentAuthorizationId).toBe(reauthorized.data.id);
    expect(state.recentEvents).toContainEqual(
      expect.objectContaining({ eventType: 'authorization.voided', applied: false }),
    );
  });

  it('an event about a reauthorization reaches the lifecycle that holds it', async () => {
    const authorizationId = await stack.startLifecycle('30.00');
    const reauthorized = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/reauthorize`,
      {},
      freshKey(),
    );
    expect(reauthorized.status).toBe(200);
    const capture = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount: '10.00' },
      freshKey(),
    );
    expect(capture.status).toBe(200);

    await stack.sandbox.deliveriesSettled();
    const captureDeliveries = stack.sandbox
      .deliveries()
      .filter(
        (record) => record.eventType === 'PAYMENT.CAPTURE.COMPLETED' && record.webhookId === stack.webhookId,
      );
    let routed: WebhookVerificationResult | undefined;
    for (const record of captureDeliveries) {
      const result = await stack.verification(record.transmissionId);
      if (result.outcome === 'delivered' && result.event.captureId === capture.data.id) routed = result;
    }
    expect(routed).toMatchObject({
      lifecycleWorkflowId: `authorization-${authorizationId}`,
      event: { authorizationId: reauthorized.data.id },
    });
    const state = await stack.lifecycleState(authorizationId);
    expect(state.recentEvents).toContainEqual(
      expect.objectContaining({
        eventType: 'capture.completed',
        authorizationId: reauthorized.data.id,
      }),
    );
  });

  it('an event for which no lifecycle runs is recorded as unrouted, once, and the run ends', async () => {
    const authorization = await stack.createAuthorization('10.00');
    const delivery = stack.sign(voidedEvent(authorization.id));
    expect((await stack.deliver(delivery)).status).toBe(202);
    const result = await stack.verification(delivery.transmissionId);
    expect(result).toMatchObject({ outcome: 'unrouted', verification: 'SUCCESS' });
    expect(result.outcome === 'unrouted' && result.reason).toContain(`authorization-${authorization.id}`);
    const described = await stack.client.workflow
      .getHandle(webhookVerificationWorkflowId(delivery.transmissionId))
      .describe();
    expect(described.typedSearchAttributes.get(PaymentEventRoutingKey)).toBe('UNROUTED');
    expect(described.typedSearchAttributes.get(WebhookVerificationKey)).toBe('SUCCESS');
  });
});

describe('nothing is lost while the service restarts or the provider falters', () => {
  it('a delivery accepted while no worker runs is verified and delivered once one is back', async () => {
    const taskQueue = uniqueTaskQueue('webhooks-restart');
    const api = await stack.startApi({ taskQueue });
    try {
      const authorizationId = await stack.startLifecycle('10.00');
      const delivery = stack.sign(voidedEvent(authorizationId));
      const response = await api.http.post(WEBHOOK_ROUTE, delivery.body, {
        headers: delivery.headers,
        transformRequest: (data: unknown) => data,
      });
      expect(response.status).toBe(202);
      expect((await stack.lifecycleState(authorizationId)).status).toBe('AUTHORIZED');

      const result = await withWorker(
        {
          taskQueue,
          activities: createPaymentsWorkerActivities({ provider: stack.port }),
        },
        () => stack.verification(delivery.transmissionId),
      );
      expect(result).toMatchObject({ outcome: 'delivered' });
      expect((await stack.lifecycleState(authorizationId)).status).toBe('VOIDED');
    } finally {
      await api.app.close();
    }
  });

  it('a provider that fails verification is asked again until it answers', async () => {
    const authorizationId = await stack.startLifecycle('10.00');
    await stack.sandbox.deliveriesSettled();
    expect(
      (await stack.provider.post('/sandbox/faults', { operation: 'verify', mode: 'http500', count: 2 }))
        .status,
    ).toBe(201);
    const delivery = stack.sign(voidedEvent(authorizationId));
    expect((await stack.deliver(delivery)).status).toBe(202);
    expect(await stack.verification(delivery.transmissionId)).toMatchObject({ outcome: 'delivered' });
    expect((await stack.provider.get('/sandbox/faults')).data).toEqual({ faults: [] });
    expect((await stack.lifecycleState(authorizationId)).status).toBe('VOIDED');
  });
});
