import { randomUUID } from 'node:crypto';
import axios, { type AxiosInstance } from 'axios';
import { runService, waitForHttp, waitForLine, type ServiceProcess } from '../../src/dev/child-process';
import { startDevServer, type DevServer } from '../../src/dev/dev-server';
import { findFreePort } from '../../src/dev/ports';
import { resolveTemporalCli } from '../../src/dev/temporal-cli';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';
import { TEST_CODEC_KEYS_ENV } from './temporal';

export const OPERATOR_API_KEY = 'operator-test-key-of-at-least-32-characters';

/**
 * What an operator has: a dev server with its Web UI pointed at the API's codec server, and the service's
 * own worker and API processes (src/workers/main.ts, src/api/main.ts). The worker runs as in production:
 * NODE_ENV=production, PAYLOAD_CODEC_KEYS, JSON logs, the Prometheus endpoint. The API runs as `npm start` runs
 * it: the Web UI sends no key, and only a development API lets a browser on this machine decode without one.
 */
export interface OperatorStack {
  temporal: DevServer;
  uiUrl: string;
  apiUrl: string;
  workerMetricsUrl: string;
  /** The API's metrics, on their own internal port (API_METRICS_PORT). */
  apiMetricsUrl: string;
  sandbox: Sandbox;
  api: AxiosInstance;
  provider: AxiosInstance;
  close(): Promise<void>;
}

export async function startOperatorStack(): Promise<OperatorStack> {
  const [temporalPort, uiPort, apiPort, metricsPort, apiMetricsPort] = [
    await findFreePort(),
    await findFreePort(),
    await findFreePort(),
    await findFreePort(),
    await findFreePort(),
  ];
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const uiUrl = `http://localhost:${uiPort}`;
  const sandbox = await startSandbox({ port: 0, logger: false });
  const cli = await resolveTemporalCli();
  const temporal = await startDevServer({
    cliPath: cli.path,
    port: temporalPort,
    uiPort,
    namespace: 'default',
    uiCodecEndpoint: `http://localhost:${apiPort}/codec`,
  });
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: `operators-${randomUUID()}`,
    PAYLOAD_CODEC_KEYS: TEST_CODEC_KEYS_ENV,
    CHARACTERS_API_KEYS: 'operator-stack-characters-key-of-32-characters',
    // The sandbox is the provider: plain http on this machine, its own credentials.
    ALLOW_INSECURE_PROVIDER_FOR_TESTS: '1',
    PAYPAL_BASE_URL: sandbox.url,
    PAYPAL_CLIENT_SECRET: 'sandbox-secret',
    WEBHOOK_CERT_HOSTS: '127.0.0.1,localhost',
    WORKER_METRICS_PORT: String(metricsPort),
    WORKFLOW_BUNDLE_PATH: process.env.TEST_WORKFLOW_BUNDLE,
    API_PORT: String(apiPort),
    API_METRICS_PORT: String(apiMetricsPort),
    API_KEYS: OPERATOR_API_KEY,
    CODEC_CORS_ORIGINS: `${uiUrl},http://127.0.0.1:${uiPort}`,
  };
  const services: ServiceProcess[] = [];
  const close = async () => {
    await Promise.all(services.map((service) => service.stop()));
    await temporal.stop();
    await sandbox.close();
  };
  try {
    const worker = runService('worker', 'src/workers/main.ts', env);
    services.push(worker);
    await waitForLine(worker, 'worker polling', 90_000);
    const api = runService('api', 'src/api/main.ts', { ...env, NODE_ENV: 'development' });
    services.push(api);
    await waitForHttp(`${apiUrl}/health`, api, 90_000);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    temporal,
    uiUrl,
    apiUrl,
    workerMetricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    apiMetricsUrl: `http://127.0.0.1:${apiMetricsPort}/metrics`,
    sandbox,
    api: axios.create({
      baseURL: apiUrl,
      headers: { authorization: `Bearer ${OPERATOR_API_KEY}` },
      validateStatus: () => true,
    }),
    provider: axios.create({ baseURL: sandbox.url, validateStatus: () => true }),
    close,
  };
}
