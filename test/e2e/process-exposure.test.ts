import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { runService, waitForHttp, type ServiceProcess } from '../../src/dev/child-process';
import { findFreePort } from '../../src/dev/ports';
import { TEST_CODEC_KEYS_ENV, temporalAddress } from '../helpers/temporal';

/**
 * The API process (src/api/main.ts) as `npm start` and production run it: where it listens, and who may use its
 * codec server without a key (the Web UI's origin is the default CORS origin, TEMPORAL_UI_PORT 8233); and where
 * the sandbox process (src/sandbox/main.ts) listens.
 */
const UI_ORIGIN = 'http://localhost:8233';
const API_KEY = 'exposure-test-key-of-at-least-32-characters';

/** This machine's address on a network, which a peer elsewhere connects to (not loopback). */
function networkAddress(): string {
  const address = Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry?.family === 'IPv4' && !entry.internal)?.address;
  if (!address) throw new Error('this test needs a non-loopback IPv4 interface');
  return address;
}

const started: ServiceProcess[] = [];

/** Each API's metrics port (API_METRICS_PORT), by its API port. */
const metricsPorts = new Map<number, number>();

async function startApi(env: NodeJS.ProcessEnv): Promise<number> {
  const port = await findFreePort();
  const metricsPort = await findFreePort();
  metricsPorts.set(port, metricsPort);
  const api = runService(
    'api',
    'src/api/main.ts',
    {
      TEMPORAL_ADDRESS: temporalAddress(),
      PAYLOAD_CODEC_KEYS: TEST_CODEC_KEYS_ENV,
      API_KEYS: API_KEY,
      API_PORT: String(port),
      API_METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'warn',
      ...env,
    },
    { log: () => {} },
  );
  started.push(api);
  await waitForHttp(`http://127.0.0.1:${port}/health`, api, 90_000);
  return port;
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** A keyless decode from the Web UI's origin, as the UI's browser sends it. */
const decodeFromUi = (host: string, port: number) =>
  fetch(`http://${host}:${port}/codec/decode`, {
    method: 'POST',
    headers: { origin: UI_ORIGIN, 'content-type': 'application/json' },
    body: JSON.stringify({ payloads: [] }),
  });

async function startSandbox(env: NodeJS.ProcessEnv): Promise<number> {
  const port = await findFreePort();
  const sandbox = runService(
    'sandbox',
    'src/sandbox/main.ts',
    { SANDBOX_PORT: String(port), ...env },
    {
      log: () => {},
    },
  );
  started.push(sandbox);
  await waitForHttp(`http://127.0.0.1:${port}/sandbox/deliveries`, sandbox, 90_000);
  return port;
}

let development: number;
let developmentOnEveryInterface: number;
let production: number;
let sandbox: number;
let sandboxInContainer: number;
beforeAll(async () => {
  [development, developmentOnEveryInterface, production, sandbox, sandboxInContainer] = await Promise.all([
    startApi({ NODE_ENV: 'development' }),
    startApi({ NODE_ENV: 'development', API_HOST: '0.0.0.0' }),
    startApi({
      NODE_ENV: 'production',
      PAYPAL_BASE_URL: 'https://payments.invalid',
      PAYPAL_CLIENT_ID: 'exposure-test-client',
      PAYPAL_CLIENT_SECRET: 'exposure-test-secret',
      WEBHOOK_CERT_HOSTS: 'payments.invalid',
      // An unknown variable opens nothing: there is no keyless path in production, whatever the environment says.
      CODEC_UI_WITHOUT_KEY: 'true',
    }),
    startSandbox({}),
    startSandbox({ SANDBOX_HOST: '0.0.0.0' }),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all(started.map((api) => api.stop()));
});

describe('the API process', () => {
  it('listens on loopback only in development unless API_HOST says otherwise', async () => {
    expect(await canConnect('127.0.0.1', development)).toBe(true);
    expect(await canConnect(networkAddress(), development)).toBe(false);
    expect(await canConnect(networkAddress(), developmentOnEveryInterface)).toBe(true);
  });

  it('lets the Web UI decode without a key only from this machine and only in development', async () => {
    expect((await decodeFromUi('127.0.0.1', development)).status).toBe(200);
    // An Origin header is not an identity: a peer elsewhere sends the same header.
    const elsewhere = await decodeFromUi(networkAddress(), developmentOnEveryInterface);
    expect(elsewhere.status).toBe(401);
    const keyless = await decodeFromUi('127.0.0.1', production);
    expect(keyless.status).toBe(401);
    const withKey = await fetch(`http://127.0.0.1:${production}/codec/decode`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(withKey.status).toBe(200);
  });
});

describe('the API’s other doors', () => {
  it('serves /metrics on its own loopback port, never on the API’s port', async () => {
    for (const port of [development, developmentOnEveryInterface, production]) {
      const metricsPort = metricsPorts.get(port) as number;
      const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('api_request_duration_seconds');
      expect(await canConnect(networkAddress(), metricsPort)).toBe(false);
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
    }
  });

  it('serves /docs and /openapi.json in development, not in production unless API_DOCS=true', async () => {
    expect((await fetch(`http://127.0.0.1:${development}/openapi.json`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${production}/openapi.json`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${production}/docs/`)).status).toBe(404);
  });
});

describe('the sandbox process', () => {
  it('listens on loopback unless SANDBOX_HOST opens it to the other containers', async () => {
    expect(await canConnect(networkAddress(), sandbox)).toBe(false);
    expect(await canConnect(networkAddress(), sandboxInContainer)).toBe(true);
  });
});
