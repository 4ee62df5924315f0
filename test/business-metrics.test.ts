import type { MetricCounter, MetricMeter, MetricTags } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createPaymentsActivities } from '../src/activities/payments';
import { createWebhookActivities } from '../src/activities/webhooks';
import { PaymentsClient } from '../src/payments/client';
import type { SignatureCheck } from '../src/workflows/webhooks/definitions';
import {
  authorizationBody,
  respondJson,
  startRecordingProvider,
  type RecordingProvider,
} from './helpers/recording-provider';

/** A metric meter that keeps every counter increment, with the tags it was given. */
class RecordingMeter {
  readonly added: Array<{ name: string; value: number; tags: MetricTags }> = [];

  createCounter(name: string): MetricCounter {
    return {
      name,
      kind: 'counter',
      valueType: 'int',
      add: (value: number, tags: MetricTags = {}) => void this.added.push({ name, value, tags }),
      withTags: () => {
        throw new Error('not used');
      },
    } as unknown as MetricCounter;
  }

  total(name: string, tags: MetricTags = {}): number {
    return this.added
      .filter(
        (entry) =>
          entry.name === name && Object.entries(tags).every(([key, value]) => entry.tags[key] === value),
      )
      .reduce((sum, entry) => sum + entry.value, 0);
  }
}

let provider: RecordingProvider;
let meter: RecordingMeter;
let env: MockActivityEnvironment;
let payments: PaymentsClient;

beforeEach(async () => {
  provider = await startRecordingProvider(() => {});
  payments = new PaymentsClient({ baseUrl: provider.url, credentials: { accessToken: 't' }, timeoutMs: 300 });
  meter = new RecordingMeter();
  env = new MockActivityEnvironment(undefined, { metricMeter: meter as unknown as MetricMeter });
});
afterEach(async () => {
  await provider.close();
});

const refusal = (issue: string) => ({
  name: 'UNPROCESSABLE_ENTITY',
  message: 'The requested action could not be performed.',
  details: [{ issue, description: issue }],
});

describe('business counters of the activities', () => {
  it('counts voids and reauthorizations by outcome, and the provider’s refusals by issue', async () => {
    const activities = createPaymentsActivities(payments);
    provider.setHandler((_req, res) => respondJson(res, 200, authorizationBody({ status: 'VOIDED' })));
    await env.run(activities.voidAuthorization, 'AUTH-1');
    provider.setHandler((_req, res) => respondJson(res, 422, refusal('PREVIOUSLY_CAPTURED')));
    await expect(env.run(activities.voidAuthorization, 'AUTH-2')).rejects.toThrow();
    provider.setHandler((_req, res) =>
      respondJson(res, 503, { name: 'SERVICE_UNAVAILABLE', message: 'later' }),
    );
    await expect(
      env.run(activities.reauthorizeAuthorization, {
        authorizationId: 'AUTH-3',
        amount: { currency: 'USD', total: '1.00' },
      }),
    ).rejects.toThrow();
    provider.setHandler((_req, res) => respondJson(res, 201, authorizationBody({ id: 'AUTH-4' })));
    await env.run(activities.reauthorizeAuthorization, {
      authorizationId: 'AUTH-3',
      amount: { currency: 'USD', total: '1.00' },
    });

    expect(meter.total('payment_voids', { outcome: 'succeeded' })).toBe(1);
    expect(meter.total('payment_voids', { outcome: 'refused' })).toBe(1);
    expect(meter.total('payment_reauthorizations', { outcome: 'failed' })).toBe(1);
    expect(meter.total('payment_reauthorizations', { outcome: 'succeeded' })).toBe(1);
    expect(
      meter.total('payment_provider_refusals', { issue: 'PREVIOUSLY_CAPTURED', operation: 'void' }),
    ).toBe(1);
    // A transient failure is not a refusal.
    expect(meter.total('payment_provider_refusals')).toBe(1);
  });

  it('counts webhook verifications by outcome in both modes', async () => {
    const webhooks = createWebhookActivities({ payments, certificateHosts: ['localhost'] });
    const activities = createPaymentsActivities(payments);
    const delivery = {
      headers: {
        'SERVICE-AUTH-ALGO': 'SHA256withRSA',
        'SERVICE-CERT-URL': 'https://elsewhere.example/cert.pem',
        'SERVICE-TRANSMISSION-ID': 'T-1',
        'SERVICE-TRANSMISSION-SIG': 'c2ln',
        'SERVICE-TRANSMISSION-TIME': new Date().toISOString(),
      },
      body: '{"id":"WH-1"}',
    };
    const local: SignatureCheck = await env.run(webhooks.verifyWebhookSignatureLocally, {
      delivery,
      webhookId: 'WH',
    });
    expect(local.verification_status).toBe('FAILURE');
    provider.setHandler((_req, res) => respondJson(res, 200, { verification_status: 'SUCCESS' }));
    await env.run(activities.verifyWebhookSignature, { delivery, webhookId: 'WH' });

    expect(meter.total('webhook_verifications', { outcome: 'FAILURE', mode: 'local' })).toBe(1);
    expect(meter.total('webhook_verifications', { outcome: 'SUCCESS', mode: 'api' })).toBe(1);
    expect(meter.total('webhook_verifications')).toBe(2);
  });
});
