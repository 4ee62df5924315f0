import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { chromium, type Browser, type Page } from 'playwright-core';
import { lifecycleWorkflowId } from '../../src/workflows/lifecycle/definitions';
import { testCodec } from '../helpers/temporal';
import { createAuthorization, startClusterHarness, startLifecycle, type ClusterHarness } from './harness';

// Decoding in production (`npm run cluster -- --authorizer`, which includes `--oidc`): operators log in to the
// Web UI through the cluster's OpenID provider; the UI forwards each one's access token to the codec server,
// which decrypts payloads only for a token of that issuer with the scope `codec`, and to Temporal, whose
// authorizer accepts the provider's keys. No key of the UI's own reaches the browser.

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');
/** Ada holds the codec right; Bob logs in as well but does not. */
const CODEC_OPERATOR = 'ada';
const OTHER_OPERATOR = 'bob';
const orderId = `order-${randomUUID().slice(0, 8)}`;
/** The cluster's HTTPS in front of the codec has a self-signed certificate made at start. */
const TRUSTS_CODEC_CERTIFICATE = { ignoreHTTPSErrors: true };

let cluster: ClusterHarness;
let browser: Browser;
let workflowId: string;
let workflowUrl: string;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  cluster = await startClusterHarness({
    ui: true,
    oidc: { codecOperators: [CODEC_OPERATOR] },
    databasePrefix: 'temporal_cluster_ui',
    authorizer: true,
  });
  const authorizationId = await createAuthorization(cluster.provider, '47.21');
  // The lifecycle sleeps until its authorization is due for reauthorization: its start input stays on show.
  await startLifecycle(cluster.apis[0]!, authorizationId, { orderId });
  workflowId = lifecycleWorkflowId(authorizationId);
  workflowUrl = `${cluster.stack.uiUrl}/namespaces/default/workflows/${workflowId}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-dev-shm-usage'],
  });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await cluster?.close();
}, 120_000);

/** The codec server's answers to the page, by status. */
function codecAnswers(page: Page): Map<number, number> {
  const seen = new Map<number, number>();
  page.on('response', (response) => {
    if (new URL(response.url()).pathname.endsWith('/codec/decode') && response.request().method() === 'POST')
      seen.set(response.status(), (seen.get(response.status()) ?? 0) + 1);
  });
  return seen;
}

/** Waits until `text` shows in the page or one of its frames. */
async function waitForText(page: Page, text: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await pageText(page)).includes(text)) return;
    if (Date.now() > deadline) throw new Error(`"${text}" did not show within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function pageText(page: Page): Promise<string> {
  const texts = await Promise.all(
    page.frames().map((frame) =>
      frame
        .locator('body')
        .innerText()
        .catch(() => ''),
    ),
  );
  return texts.join('\n');
}

/** Logs `login` in through the UI's SSO: the provider's development form takes any password. */
async function logIn(page: Page, login: string): Promise<void> {
  await page.goto(`${cluster.stack.uiUrl}/auth/sso`);
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill(`${login}-password`);
  await page.getByRole('button', { name: 'Sign-in' }).click();
  const consent = page.getByRole('button', { name: 'Continue' });
  await Promise.race([
    consent.click({ timeout: 10_000 }).catch(() => undefined),
    page.waitForURL(`${cluster.stack.uiUrl}/**`, { timeout: 10_000 }),
  ]);
  await page.waitForURL(`${cluster.stack.uiUrl}/**`);
}

async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

it('shows an operator with the codec right the lifecycle’s input decrypted, through the operator’s own token', async () => {
  const context = await browser.newContext({
    viewport: { width: 1400, height: 900 },
    ...TRUSTS_CODEC_CERTIFICATE,
  });
  const page = await context.newPage();
  const codec = codecAnswers(page);
  await logIn(page, CODEC_OPERATOR);
  await page.goto(workflowUrl);
  await waitForText(page, `"orderId": "${orderId}"`);
  await page.screenshot({ path: join(ARTIFACTS, 'ui-oidc-decoded.png') });
  expect(codec.get(200)).toBeGreaterThan(0);
  expect(codec.get(401) ?? 0).toBe(0);
  await context.close();
}, 180_000);

it('refuses to decode for an operator whose token lacks the codec scope: the payload stays encrypted', async () => {
  const context = await browser.newContext({
    viewport: { width: 1400, height: 900 },
    ...TRUSTS_CODEC_CERTIFICATE,
  });
  const page = await context.newPage();
  const codec = codecAnswers(page);
  await logIn(page, OTHER_OPERATOR);
  await page.goto(workflowUrl);
  await until(() => (codec.get(403) ?? 0) > 0, 'no refusal (403) from the codec server');
  // The page shows the run (its id) but never the order id, which only the decrypted input holds.
  await waitForText(page, workflowId);
  await page.screenshot({ path: join(ARTIFACTS, 'ui-oidc-refused.png') });
  expect(await pageText(page)).not.toContain(orderId);
  expect(codec.get(200) ?? 0).toBe(0);
  await context.close();
}, 180_000);

it('refuses to decode without a login: the codec server answers 401 to the UI’s origin', async () => {
  const context = await browser.newContext(TRUSTS_CODEC_CERTIFICATE);
  const page = await context.newPage();
  await page.goto(workflowUrl);
  const [sealed] = await testCodec.encode([defaultPayloadConverter.toPayload({ orderId })]);
  const body = {
    payloads: [
      {
        metadata: Object.fromEntries(
          Object.entries(sealed!.metadata ?? {}).map(([key, value]) => [
            key,
            Buffer.from(value ?? []).toString('base64'),
          ]),
        ),
        data: Buffer.from(sealed!.data ?? []).toString('base64'),
      },
    ],
  };
  // What the UI's page would send without an operator's token: from its origin, no Authorization header.
  const answer = await page.evaluate(
    async ({ url, payloads }) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-namespace': 'default' },
        body: JSON.stringify(payloads),
      });
      return { status: response.status, text: await response.text() };
    },
    { url: `${cluster.stack.apiUrls[0]}/codec/decode`, payloads: body },
  );
  expect(answer.status).toBe(401);
  expect(answer.text).not.toContain(orderId);
  expect(await pageText(page)).not.toContain(orderId);
  await context.close();
}, 120_000);
