import { MockActivityEnvironment } from '@temporalio/testing';
import { createWebhookActivities, type WebhookActivities } from '../../src/activities/webhooks';
import { createPayPalProvider } from '../../src/providers/registry';
import { respondJson, startRecordingProvider, type RecordingProvider } from '../helpers/recording-provider';

let provider: RecordingProvider;
let activities: WebhookActivities;
let env: MockActivityEnvironment;

beforeEach(async () => {
  provider = await startRecordingProvider(() => {});
  const payments = createPayPalProvider({
    baseUrl: provider.url,
    credentials: { accessToken: 'test-token' },
    timeoutMs: 5_000,
  });
  activities = createWebhookActivities({ provider: payments });
  env = new MockActivityEnvironment();
});
afterEach(async () => {
  await provider.close();
});

describe('webhook activities', () => {
  it('verifies a delivery through the provider, its body passed on byte for byte', async () => {
    provider.setHandler((_req, res) => respondJson(res, 200, { verification_status: 'FAILURE' }));
    const body = '{"id":"WH-EVT","n":1.0}';
    const result = await env.run(activities.verifyWebhookSignature, {
      delivery: { headers: { 'SERVICE-TRANSMISSION-ID': 'tx' }, body },
      webhookId: 'WH-1',
    });
    expect(result).toEqual({ verification_status: 'FAILURE' });
    expect(provider.requests[0]?.body.toString()).toBe(
      `{"transmission_id":"tx","webhook_id":"WH-1","webhook_event":${body}}`,
    );
  });
});
