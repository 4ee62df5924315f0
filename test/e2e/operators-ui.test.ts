import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { chromium, type Browser, type Page } from 'playwright-core';
import { lifecycleWorkflowId } from '../../src/workflows/lifecycle/definitions';
import {
  decodedHistoryText,
  encodingOf,
  historyPayloads,
  rawHistoryWithoutSearchAttributes,
} from '../helpers/history-payloads';
import { dashboardQueries, ratedMetrics } from '../helpers/grafana-dashboard';
import { historyToJson } from '../helpers/history-json';
import { sampleTotal, scrapeMetrics } from '../helpers/prometheus-text';
import { promtoolFindings, promtoolInstalled } from '../helpers/promtool';
import { startOperatorStack, type OperatorStack } from '../helpers/operator-stack';
import { testCodec } from '../helpers/temporal';

/**
 * What an operator sees: the service's own worker (production mode, encrypted payloads) and API processes,
 * a dev server whose Web UI decodes through the API's codec server, and Debian's Chromium driving that UI.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');
const authorizedValue = '173.19';
const capturedValue = '61.37';
const orderId = `order-${randomUUID().slice(0, 8)}`;

let stack: OperatorStack;
let authorizationId: string;
/** A lifecycle whose capture the provider refused (its payment's intent is CAPTURE). */
let refusedId: string;
let refusal: { code: string; message: string; details: { issue: string } };
let browser: Browser;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  stack = await startOperatorStack();
  const authorization = await stack.provider.post('/sandbox/authorizations', {
    amount: { currency_code: 'USD', value: authorizedValue },
  });
  authorizationId = (authorization.data as { id: string }).id;
  const started = await stack.api.post('/v1/lifecycles', { authorizationId, orderId });
  expect(started.status).toBe(201);
  const captured = await stack.api.post(
    `/v1/lifecycles/${authorizationId}/capture`,
    { amount: capturedValue },
    // Keys, like workflow ids and search attributes, are not encrypted: this one carries no order id.
    { headers: { 'idempotency-key': `capture-${randomUUID()}` } },
  );
  expect(captured.status).toBe(200);

  const other = await stack.provider.post('/sandbox/authorizations', {
    amount: { currency_code: 'USD', value: '10.00' },
    intent: 'CAPTURE',
  });
  refusedId = (other.data as { id: string }).id;
  expect((await stack.api.post('/v1/lifecycles', { authorizationId: refusedId })).status).toBe(201);
  const refused = await stack.api.post(
    `/v1/lifecycles/${refusedId}/capture`,
    {},
    { headers: { 'idempotency-key': randomUUID() } },
  );
  expect(refused.status).toBe(422);
  refusal = (refused.data as { error: typeof refusal }).error;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-dev-shm-usage'],
  });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
}, 60_000);

/** Waits until `text` shows in the page or one of its frames (the UI renders markdown metadata in an iframe). */
async function waitForText(page: Page, text: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const frame of page.frames()) {
      const shown = await frame
        .locator('body')
        .innerText()
        .catch(() => '');
      if (shown.includes(text)) return;
    }
    if (Date.now() > deadline) throw new Error(`"${text}" did not show within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Counts the codec server's answers to the page: proof that what the page shows went through it. */
function codecAnswers(page: Page): { decoded: number } {
  const seen = { decoded: 0 };
  page.on('response', (response) => {
    if (response.url().endsWith('/codec/decode') && response.status() === 200) seen.decoded += 1;
  });
  return seen;
}

it('finds the lifecycle in the Web UI by PaymentStatus and shows its order and capture decrypted by the codec server', async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const codec = codecAnswers(page);
  const workflowId = lifecycleWorkflowId(authorizationId);
  const query = encodeURIComponent('PaymentStatus="PARTIALLY_CAPTURED"');
  const link = page.getByRole('link', { name: workflowId });
  // Visibility indexes the search attribute shortly after the upsert: reload until the filter finds the run.
  for (let attempt = 0; ; attempt += 1) {
    await page.goto(`${stack.uiUrl}/namespaces/default/workflows?query=${query}`);
    try {
      await link.waitFor({ timeout: 5_000 });
      break;
    } catch (error) {
      if (attempt >= 5) throw error;
    }
  }
  await page.screenshot({ path: join(ARTIFACTS, 'ui-filter-partially-captured.png') });

  await link.click();
  // The start input, decrypted: the order id.
  await waitForText(page, `"orderId": "${orderId}"`);
  await page.screenshot({ path: join(ARTIFACTS, 'ui-lifecycle-input.png') });

  // The summary given at start and the current details the workflow sets, both decrypted.
  await page.getByText('User Metadata', { exact: true }).click();
  await waitForText(page, `Authorization ${authorizationId} · order ${orderId}`);
  await waitForText(page, `captured ${capturedValue} of ${authorizedValue} USD, 111.82 remaining`);
  await page.screenshot({
    path: join(ARTIFACTS, 'ui-current-details.png'),
    clip: { x: 0, y: 0, width: 1400, height: 560 },
  });
  expect(codec.decoded).toBeGreaterThan(0);
  await page.close();
}, 120_000);

it('shows the provider’s refusal of a capture decrypted in the Web UI', async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1200 } });
  await page.goto(`${stack.uiUrl}/namespaces/default/workflows/${lifecycleWorkflowId(refusedId)}`);
  // The newest event first: the capture Update's failure, its message in the decrypted encoded attributes.
  await page.getByText('Workflow Execution Update Completed').first().click();
  await waitForText(page, refusal.message);
  await page.screenshot({ path: join(ARTIFACTS, 'ui-refused-capture.png'), fullPage: true });
  await page.close();
}, 60_000);

it('keeps the amounts and the order id out of the raw history, which holds them encrypted', async () => {
  // A client without the codec sees what the server stores.
  const connection = await Connection.connect({ address: stack.temporal.address });
  try {
    const raw = new Client({ connection });
    const history = await raw.workflow.getHandle(lifecycleWorkflowId(authorizationId)).fetchHistory();
    writeFileSync(join(ARTIFACTS, 'encrypted-lifecycle-history.json'), historyToJson(history));

    const stored = rawHistoryWithoutSearchAttributes(history);
    for (const secret of [capturedValue, authorizedValue, orderId])
      expect(stored.includes(secret)).toBe(false);
    const encodings = new Set(historyPayloads(history).map(encodingOf));
    expect(encodings.has('binary/encrypted')).toBe(true);
    expect(encodings.has('json/plain')).toBe(true); // the search attributes, readable on purpose

    const decrypted = await decodedHistoryText(history, testCodec);
    for (const secret of [capturedValue, authorizedValue, orderId]) expect(decrypted).toContain(secret);
  } finally {
    await connection.close();
  }
});

it('encrypts failure messages too: the API reads the provider’s refusal, the raw history does not', async () => {
  expect(refusal.code).toBe('PROVIDER_REFUSED');
  expect(refusal.details.issue).toBe('ACTION_DOES_NOT_MATCH_INTENT');
  expect(refusal.message).not.toBe('Encoded failure');
  expect(refusal.message.length).toBeGreaterThan(10);

  const connection = await Connection.connect({ address: stack.temporal.address });
  try {
    const history = await new Client({ connection }).workflow
      .getHandle(lifecycleWorkflowId(refusedId))
      .fetchHistory();
    const stored = rawHistoryWithoutSearchAttributes(history);
    expect(stored.includes(refusal.message)).toBe(false);
    expect(stored.includes('Encoded failure')).toBe(true);
    expect(await decodedHistoryText(history, testCodec)).toContain(refusal.message);
  } finally {
    await connection.close();
  }
});

it('counts captures, provider refusals and API requests on the worker and API Prometheus endpoints', async () => {
  const worker = await scrapeMetrics(stack.workerMetricsUrl);
  expect(sampleTotal(worker, 'payment_captures_total', { outcome: 'succeeded' })).toBe(1);
  expect(sampleTotal(worker, 'payment_captures_total', { outcome: 'refused' })).toBe(1);
  expect(
    sampleTotal(worker, 'payment_provider_refusals_total', {
      issue: 'ACTION_DOES_NOT_MATCH_INTENT',
      operation: 'capture',
    }),
  ).toBe(1);

  const api = await scrapeMetrics(stack.apiMetricsUrl);
  const captures = { route: '/v1/lifecycles/:authorizationId/capture', method: 'POST' };
  expect(sampleTotal(api, 'api_request_duration_seconds_count', { ...captures, status_code: '200' })).toBe(1);
  expect(sampleTotal(api, 'api_request_duration_seconds_count', { ...captures, status_code: '422' })).toBe(1);
  expect(
    sampleTotal(api, 'api_request_duration_seconds_count', { route: '/codec/decode', status_code: '200' }),
  ).toBeGreaterThan(0);
  // Prometheus naming on both real endpoints: the worker's whole, the SDK's own metrics included; the API's
  // without prom-client's Node and process metrics.
  if (promtoolInstalled) {
    expect(promtoolFindings(worker)).toEqual([]);
    expect(promtoolFindings(api)).toEqual([]);
  }
});

it("charts on the Grafana dashboard the SDK's metrics by the names the worker exports", async () => {
  const charted = new Set(dashboardQueries().flatMap(ratedMetrics));
  const sdk = [...charted].filter((metric) => metric.startsWith('temporal_'));
  expect(sdk.length).toBeGreaterThan(0);
  const exported = await scrapeMetrics(stack.workerMetricsUrl);
  for (const metric of sdk) expect(exported).toMatch(new RegExp(`^${metric}\\{`, 'm'));
});
