import type { AddressInfo } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import Fastify from 'fastify';
import { Registry } from 'prom-client';
import { Runtime } from '@temporalio/worker';
import { createPaymentsActivities } from '../../src/activities/payments';
import { createWebhookActivities } from '../../src/activities/webhooks';
import { recordApiMetrics, serveMetrics } from '../../src/api/metrics';
import { findFreePort } from '../../src/dev/ports';
import type { PaymentsProvider } from '../../src/providers/port';
import { createPayPalProvider } from '../../src/providers/registry';
import { workerPrometheusExporter } from '../../src/workers/prometheus';
import type { SignatureCheck } from '../../src/workflows/webhooks/definitions';
import { scrapeMetrics, sampleTotal } from '../helpers/prometheus-text';
import { promtoolFindings, promtoolInstalled } from '../helpers/promtool';
import {
  authorizationBody,
  respondJson,
  startRecordingProvider,
  type RecordingProvider,
} from '../helpers/recording-provider';

// The SDK runtime with the worker's Prometheus exporter, as src/workers/main.ts installs it; the counters are
// read back over HTTP, as Prometheus reads them.
let metricsUrl: string;
let provider: RecordingProvider;
const env = new MockActivityEnvironment({ taskQueue: 'payment-authorizations' });
let payments: PaymentsProvider;

beforeAll(async () => {
  const port = await findFreePort();
  Runtime.install({ telemetryOptions: { metrics: workerPrometheusExporter(`127.0.0.1:${port}`) } });
  metricsUrl = `http://127.0.0.1:${port}/metrics`;
});
beforeEach(async () => {
  provider = await startRecordingProvider(() => {});
  payments = createPayPalProvider({
    baseUrl: provider.url,
    credentials: { accessToken: 't' },
    timeoutMs: 5_000,
    certificateHosts: ['localhost'],
  });
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
    await env.run(activities.voidAuthorization, { authorizationId: 'AUTH-1', idempotencyKey: 'void-1' });
    provider.setHandler((_req, res) => respondJson(res, 422, refusal('PREVIOUSLY_CAPTURED')));
    await expect(
      env.run(activities.voidAuthorization, { authorizationId: 'AUTH-2', idempotencyKey: 'void-2' }),
    ).rejects.toThrow();
    provider.setHandler((_req, res) =>
      respondJson(res, 503, { name: 'SERVICE_UNAVAILABLE', message: 'later' }),
    );
    await expect(
      env.run(activities.reauthorizeAuthorization, {
        authorizationId: 'AUTH-3',
        amount: { currency_code: 'USD', value: '1.00' },
        idempotencyKey: 'reauthorize-3',
      }),
    ).rejects.toThrow();
    provider.setHandler((_req, res) => respondJson(res, 201, authorizationBody({ id: 'AUTH-4' })));
    await env.run(activities.reauthorizeAuthorization, {
      authorizationId: 'AUTH-3',
      amount: { currency_code: 'USD', value: '1.00' },
      idempotencyKey: 'reauthorize-3',
    });

    const exposed = await scrapeMetrics(metricsUrl);
    expect(exposed).toContain('# TYPE payment_voids_total counter');
    // MockActivityEnvironment's activity type is 'unknown'; a worker labels each activity with its own.
    const voids = {
      outcome: 'succeeded',
      activity_type: 'unknown',
      task_queue: 'payment-authorizations',
    };
    expect(sampleTotal(exposed, 'payment_voids_total', voids)).toBe(1);
    expect(sampleTotal(exposed, 'payment_voids_total', { outcome: 'refused' })).toBe(1);
    expect(sampleTotal(exposed, 'payment_reauthorizations_total', { outcome: 'failed' })).toBe(1);
    expect(sampleTotal(exposed, 'payment_reauthorizations_total', { outcome: 'succeeded' })).toBe(1);
    expect(
      sampleTotal(exposed, 'payment_provider_refusals_total', {
        issue: 'PREVIOUSLY_CAPTURED',
        operation: 'void',
      }),
    ).toBe(1);
    // A transient failure is not a refusal.
    expect(sampleTotal(exposed, 'payment_provider_refusals_total')).toBe(1);
    // Labels are snake_case: none of the activity context's camelCase ones.
    expect(exposed).not.toMatch(/^payment_\w+\{[^}]*(taskQueue|activityType)=/m);
  });

  it('counts webhook verifications by outcome in both modes', async () => {
    const webhooks = createWebhookActivities({ provider: payments });
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
    await env.run(webhooks.verifyWebhookSignature, { delivery, webhookId: 'WH' });

    const exposed = await scrapeMetrics(metricsUrl);
    expect(sampleTotal(exposed, 'webhook_verifications_total', { outcome: 'FAILURE', mode: 'local' })).toBe(
      1,
    );
    expect(sampleTotal(exposed, 'webhook_verifications_total', { outcome: 'SUCCESS', mode: 'api' })).toBe(1);
    expect(sampleTotal(exposed, 'webhook_verifications_total')).toBe(2);
  });
});

// After the counters above have samples. Skipped without promtool; .ci/run installs it.
(promtoolInstalled ? describe : describe.skip)(
  'promtool check metrics finds nothing about our metrics',
  () => {
    it("on the worker endpoint (the SDK runtime's exporter)", async () => {
      const exposed = await scrapeMetrics(metricsUrl);
      expect(exposed).toContain('payment_voids_total');
      expect(promtoolFindings(exposed)).toEqual([]);
    });

    it('on the API endpoint', async () => {
      const app = Fastify();
      const registry = new Registry();
      recordApiMetrics(app, registry);
      app.get('/health', async () => ({ status: 'ok' }));
      await app.listen({ host: '127.0.0.1', port: 0 });
      const metrics = await serveMetrics(registry, 0, '127.0.0.1');
      try {
        const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
        await fetch(`${base}/health`);
        const exposed = await scrapeMetrics(
          `http://127.0.0.1:${(metrics.address() as AddressInfo).port}/metrics`,
        );
        expect(exposed).toContain('api_request_duration_seconds_bucket');
        expect(promtoolFindings(exposed)).toEqual([]);
        expect((await fetch(`${base}/metrics`)).status).toBe(404);
      } finally {
        await app.close();
        metrics.close();
      }
    });
  },
);
