import { randomUUID } from 'node:crypto';
import { createProviderActivities } from '../../src/activities/payments';
import { LifecycleClient, LifecycleStartFailedError } from '../../src/client/lifecycle-client';
import { createPayPalProvider } from '../../src/providers/registry';
import type { Authorization } from '../../src/providers/paypal/schemas';
import { freshKey, useLifecycleStack } from '../helpers/lifecycle-stack';
import { respondJson, startRecordingProvider } from '../helpers/recording-provider';
import { uniqueTaskQueue, withWorker } from '../helpers/temporal';

// Values at the edges: durations no timer can hold, amounts beyond a JavaScript number,
// amounts with more decimals than their currency has.

const stack = useLifecycleStack();

async function authorize(currency_code: string, value: string): Promise<string> {
  const response = await stack.provider.post<Authorization>('/sandbox/authorizations', {
    amount: { currency_code, value },
  });
  expect(response.status).toBe(201);
  return response.data.id;
}

describe('durations', () => {
  it.each([
    ['reauthorizeAfter', '1000000 years', 'at most 365 days'],
    ['expiryPolicyAfter', '366 days', 'at most 365 days'],
    ['lateEventWindow', '31 days', 'at most 30 days'],
    ['idempotencyKeyRetention', '91 days', 'at most 90 days'],
    ['timerCallTimeout', '25 hours', 'at most 1 day'],
    ['eventGracePeriod', '4 days', 'at most 3 days'],
  ])('refuses %s of %s with 400 naming the field and its maximum', async (field, value, maximum) => {
    const authorizationId = await authorize('USD', '10.00');
    const response = await stack.api.post('/v1/lifecycles', { authorizationId, [field]: value });
    expect(response.status).toBe(400);
    expect(response.data.error.code).toBe('VALIDATION_FAILED');
    expect(response.data.error.message).toContain(`body.${field}`);
    expect(response.data.error.message).toContain(maximum);
  });

  it('accepts a duration at its maximum', async () => {
    const authorizationId = await authorize('USD', '10.00');
    const response = await stack.api.post('/v1/lifecycles', {
      authorizationId,
      reauthorizeAfter: '365 days',
    });
    expect(response.status).toBe(201);
  });

  it.each([
    ['reauthorizeAfter', '1000000 years', /reauthorizeAfter: "1000000 years" is not .* at most 365 days/],
    ['idempotencyKeyRetention', 'soon', /idempotencyKeyRetention: "soon" is not a positive duration/],
    ['lateEventWindow', 1e20, /lateEventWindow: 100000000000000000000 is not .* at most 30 days/],
    ['eventGracePeriod', '0 seconds', /eventGracePeriod: "0 seconds" is not a positive duration/],
  ])(
    'fails a lifecycle started past the API with %s %s at once, naming the field',
    async (field, value, why) => {
      const authorizationId = await authorize('USD', '10.00');
      const started = stack.lifecycles.start({ authorizationId, [field]: value });
      await expect(started).rejects.toThrow(LifecycleStartFailedError);
      await expect(started).rejects.toThrow(why);
    },
  );
});

describe('amounts', () => {
  it('computes exactly beyond what a JavaScript number holds', async () => {
    const authorizationId = await authorize('USD', '99999999999999999999.99');
    expect((await stack.api.post('/v1/lifecycles', { authorizationId })).status).toBe(201);
    const capture = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount: '0.01' },
      freshKey(),
    );
    expect(capture.status).toBe(200);
    const state = (await stack.api.get(`/v1/lifecycles/${authorizationId}`)).data;
    expect(state).toMatchObject({
      status: 'PARTIALLY_CAPTURED',
      authorizedAmount: '99999999999999999999.99',
      capturedAmount: '0.01',
      remainingAmount: '99999999999999999999.98',
    });
  });

  it('uses the currency decimals: a JPY capture of 1.5 is a 400, 1000 JPY less 1 is 999', async () => {
    const authorizationId = await authorize('JPY', '1000');
    expect((await stack.api.post('/v1/lifecycles', { authorizationId })).status).toBe(201);
    const fractional = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount: '1.5' },
      freshKey(),
    );
    expect(fractional.status).toBe(400);
    expect(fractional.data.error).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(fractional.data.error.message).toMatch(/^amount: "1.5" .* JPY, which has 0 decimals/);
    expect(await stack.capturesAtProvider(authorizationId)).toHaveLength(0);

    const capture = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount: '1' },
      freshKey(),
    );
    expect(capture.status).toBe(200);
    const state = (await stack.api.get(`/v1/lifecycles/${authorizationId}`)).data;
    expect(state).toMatchObject({ capturedAmount: '1', remainingAmount: '999' });
  });

  it('refuses an amount longer than the provider takes with 400 naming the field', async () => {
    const authorizationId = await authorize('USD', '10.00');
    expect((await stack.api.post('/v1/lifecycles', { authorizationId })).status).toBe(201);
    const response = await stack.api.post(
      `/v1/lifecycles/${authorizationId}/capture`,
      { amount: `1${'0'.repeat(32)}` },
      freshKey(),
    );
    expect(response.status).toBe(400);
    expect(response.data.error.message).toContain('body.amount');
  });

  it('does not manage an authorization whose amount it cannot compute exactly', async () => {
    const authorizationId = `AUTH-${randomUUID()}`;
    const provider = await startRecordingProvider((request, response) => {
      if (request.path !== `/v2/payments/authorizations/${authorizationId}`) return;
      respondJson(response, 200, {
        id: authorizationId,
        status: 'CREATED',
        amount: { currency_code: 'KWD', value: '10.0001' },
      });
    });
    const taskQueue = uniqueTaskQueue('lifecycle-values');
    const payments = createPayPalProvider({
      baseUrl: provider.url,
      credentials: { clientId: 'client', clientSecret: 'secret' },
      timeoutMs: 2_000,
    });
    try {
      await withWorker({ taskQueue, activities: createProviderActivities(payments) }, async () => {
        const started = new LifecycleClient(stack.client, taskQueue).start({ authorizationId });
        await expect(started).rejects.toThrow(/10.0001 KWD: not an amount with the decimals/);
      });
    } finally {
      await provider.close();
    }
  });
});
