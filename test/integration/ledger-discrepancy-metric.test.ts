import { Runtime } from '@temporalio/worker';
import { findFreePort } from '../../src/dev/ports';
import { lifecycleWorkflowId, paymentEventSignal } from '../../src/workflows/lifecycle/definitions';
import { workerPrometheusExporter } from '../../src/workers/prometheus';
import { freshKey } from '../helpers/lifecycle-stack';
import { scrapeMetrics, sampleTotal } from '../helpers/prometheus-text';
import { promtoolFindings, promtoolInstalled } from '../helpers/promtool';
import { stripeFixture } from '../helpers/provider-fixtures';
import { startProviderStack, type ProviderStack } from '../helpers/provider-stack';

// The worker counts each discrepancy a reconciliation records on its Prometheus endpoint, under the name the
// alert rule in deploy/prometheus/alerts.yml watches.

let metricsUrl: string;
let stack: ProviderStack;

beforeAll(async () => {
  const port = await findFreePort();
  Runtime.install({ telemetryOptions: { metrics: workerPrometheusExporter(`127.0.0.1:${port}`) } });
  metricsUrl = `http://127.0.0.1:${port}/metrics`;
  stack = await startProviderStack(stripeFixture, {}, { subscribe: false });
});
afterAll(() => stack.close());

it('counts a recorded discrepancy as ledger_discrepancies_total, by provider', async () => {
  const authorizationId = await stack.startLifecycle('25.00');
  const capture = await stack.api.post(`/v1/lifecycles/${authorizationId}/capture`, {}, freshKey());
  await stack.client.workflow.getHandle(lifecycleWorkflowId(authorizationId)).signal(paymentEventSignal, {
    id: `evt-ghost-${authorizationId}`,
    eventType: 'capture.refunded',
    captureId: capture.data.id as string,
    refundId: 're_ghost0000000001',
    movement: 'refund',
    status: 'COMPLETED',
    amount: { currency_code: 'USD', value: '5.00' },
  });
  const reconciled = await stack.api.post(`/v1/lifecycles/${authorizationId}/reconcile`, {});
  expect(reconciled.data.recorded).toHaveLength(1);

  const exposed = await scrapeMetrics(metricsUrl);
  expect(sampleTotal(exposed, 'ledger_discrepancies_total', { provider: 'stripe', reason: 'request' })).toBe(
    1,
  );
  if (promtoolInstalled) expect(promtoolFindings(exposed)).toEqual([]);
});
