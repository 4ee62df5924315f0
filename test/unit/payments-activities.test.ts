import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import {
  createPaymentsActivities,
  paymentsFailure,
  type PaymentsActivities,
} from '../../src/activities/payments';
import { createPayPalProvider } from '../../src/providers/registry';
import {
  authorizationBody,
  respondJson,
  startRecordingProvider,
  type RecordingProvider,
} from '../helpers/recording-provider';
import { rejectionOf } from '../helpers/rejection';

let provider: RecordingProvider;
let activities: PaymentsActivities;
let env: MockActivityEnvironment;

/** Activities on the recording provider; a time-out short enough to wait out only where a test waits for it. */
function activitiesTimingOutAfter(timeoutMs: number): PaymentsActivities {
  return createPaymentsActivities(
    createPayPalProvider({ baseUrl: provider.url, credentials: { accessToken: 'test-token' }, timeoutMs }),
  );
}

beforeEach(async () => {
  provider = await startRecordingProvider(() => {});
  activities = activitiesTimingOutAfter(5_000);
  env = new MockActivityEnvironment();
});
afterEach(async () => {
  await provider.close();
});

function failure(promise: Promise<unknown>): Promise<ApplicationFailure> {
  return rejectionOf(promise, ApplicationFailure);
}

const captureInput = {
  authorizationId: 'AUTH-1',
  amount: { currency_code: 'USD', value: '5.00' },
  finalCapture: true,
  idempotencyKey: 'order-7-capture-1',
};

describe('payments activities', () => {
  it('capture passes its request id on and returns the capture', async () => {
    provider.setHandler((_req, res) => respondJson(res, 201, { id: 'CAP-1', status: 'COMPLETED' }));
    const capture = await env.run(activities.captureAuthorization, captureInput);
    expect(capture).toEqual({ id: 'CAP-1', status: 'COMPLETED' });
    expect(provider.requests[0]?.headers['service-request-id']).toBe('order-7-capture-1');
  });

  it('capture refuses an empty request id with a non-retryable failure and sends nothing', async () => {
    const error = await failure(
      env.run(activities.captureAuthorization, { ...captureInput, idempotencyKey: '' }),
    );
    expect(error).toMatchObject({ type: 'MISSING_IDEMPOTENCY_KEY', nonRetryable: true });
    expect(provider.requests).toHaveLength(0);
  });

  it('turns a 422 refusal into a non-retryable failure typed by the provider issue', async () => {
    provider.setHandler((_req, res) =>
      respondJson(res, 422, {
        name: 'UNPROCESSABLE_ENTITY',
        message: 'The requested action could not be performed.',
        debug_id: 'dbg-422',
        details: [
          { issue: 'AUTHORIZATION_ALREADY_CAPTURED', description: 'Authorization has been captured.' },
        ],
      }),
    );
    const error = await failure(env.run(activities.captureAuthorization, captureInput));
    expect(error).toMatchObject({ type: 'AUTHORIZATION_ALREADY_CAPTURED', nonRetryable: true });
    expect(error.message).toContain('The requested action could not be performed.');
    expect(error.details).toEqual([
      {
        kind: 'provider',
        status: 422,
        name: 'UNPROCESSABLE_ENTITY',
        debugId: 'dbg-422',
        details: [
          { issue: 'AUTHORIZATION_ALREADY_CAPTURED', description: 'Authorization has been captured.' },
        ],
      },
    ]);
  });

  it('uses the provider error name as type when a refusal has no details', async () => {
    provider.setHandler((_req, res) => respondJson(res, 404, { name: 'RESOURCE_NOT_FOUND' }));
    const error = await failure(env.run(activities.getAuthorization, 'AUTH-404'));
    expect(error).toMatchObject({ type: 'RESOURCE_NOT_FOUND', nonRetryable: true });
  });

  it('keeps a 429 retryable and turns Retry-After into nextRetryDelay', async () => {
    provider.setHandler((_req, res) =>
      respondJson(res, 429, { name: 'RATE_LIMIT_REACHED' }, { 'Retry-After': '7' }),
    );
    const error = await failure(
      env.run(activities.voidAuthorization, { authorizationId: 'AUTH-1', idempotencyKey: 'void-1' }),
    );
    expect(error).toMatchObject({ type: 'RATE_LIMIT_REACHED', nonRetryable: false, nextRetryDelay: 7_000 });
  });

  it('keeps a 5xx retryable without overriding the retry policy delay', async () => {
    provider.setHandler((_req, res) => respondJson(res, 503, { name: 'SERVICE_UNAVAILABLE' }));
    const error = await failure(env.run(activities.listWebhookEventTypes));
    expect(error).toMatchObject({ type: 'SERVICE_UNAVAILABLE', nonRetryable: false });
    expect(error.nextRetryDelay).toBeUndefined();
  });

  it('keeps a time-out retryable', async () => {
    provider.setHandler(() => new Promise(() => {}));
    const error = await failure(
      env.run(activitiesTimingOutAfter(300).reauthorizeAuthorization, {
        authorizationId: 'A',
        amount: { currency_code: 'USD', value: '1.00' },
        idempotencyKey: 'reauthorize-1',
      }),
    );
    expect(error).toMatchObject({ type: 'TIMEOUT', nonRetryable: false });
  });

  it('makes an invalid provider response non-retryable', async () => {
    provider.setHandler((_req, res) => respondJson(res, 200, { id: 'AUTH-1' }));
    const error = await failure(env.run(activities.getAuthorization, 'AUTH-1'));
    expect(error).toMatchObject({ type: 'INVALID_RESPONSE', nonRetryable: true });
  });

  it('returns the voided authorization, read again, when the provider answers 204', async () => {
    provider.setHandler((req, res) => {
      if (req.method === 'GET') return respondJson(res, 200, authorizationBody({ status: 'VOIDED' }));
      res.writeHead(204);
      res.end();
    });
    await expect(
      env.run(activities.voidAuthorization, { authorizationId: 'AUTH-1', idempotencyKey: 'void-1' }),
    ).resolves.toMatchObject({
      status: 'VOIDED',
    });
  });

  it('wraps each webhook operation', async () => {
    const webhook = {
      id: 'WH-1',
      url: 'https://example.com/h',
      event_types: [{ name: 'PAYMENT.CAPTURE.COMPLETED' }],
    };
    provider.setHandler((req, res) => {
      if (req.method === 'DELETE') {
        res.writeHead(204);
        res.end();
      } else if (req.query.has('anchor_type')) respondJson(res, 200, { webhooks: [webhook] });
      else respondJson(res, 200, webhook);
    });
    await expect(
      env.run(activities.createWebhook, { url: webhook.url, event_types: webhook.event_types }),
    ).resolves.toEqual(webhook);
    await expect(env.run(activities.getWebhook, 'WH-1')).resolves.toEqual(webhook);
    await expect(
      env.run(activities.updateWebhook, {
        webhookId: 'WH-1',
        fields: [{ op: 'replace' as const, path: '/url', value: webhook.url }],
      }),
    ).resolves.toEqual(webhook);
    await expect(env.run(activities.listWebhooks)).resolves.toEqual({ webhooks: [webhook] });
    await expect(env.run(activities.deleteWebhook, 'WH-1')).resolves.toBeUndefined();
    expect(provider.requests.map((r) => r.method)).toEqual(['POST', 'GET', 'PATCH', 'GET', 'DELETE']);
  });

  it('gets an authorization', async () => {
    provider.setHandler((_req, res) => respondJson(res, 200, authorizationBody()));
    await expect(env.run(activities.getAuthorization, 'AUTH-1')).resolves.toMatchObject({
      status: 'CREATED',
    });
  });

  it('leaves errors that are not payments errors as they are', () => {
    const error = new Error('boom');
    expect(paymentsFailure(error)).toBe(error);
  });
});
