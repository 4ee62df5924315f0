import { randomUUID } from 'node:crypto';
import axios from 'axios';
import { runService, waitForHttp, type ServiceProcess } from '../../src/dev/child-process';
import { findFreePort } from '../../src/dev/ports';
import {
  TEST_CODEC_KEYS_ENV,
  startWorkerProcess,
  temporalAddress,
  uniqueTaskQueue,
} from '../helpers/temporal';

// The service's own processes (sandbox, worker, API) on the Node that runs jest, serving one lifecycle from
// start to capture: CI runs this on the older Node it still supports, besides the unit suites.

const API_KEY = 'smoke-test-key-of-at-least-32-characters';
const taskQueue = uniqueTaskQueue('smoke');
const started: ServiceProcess[] = [];
let apiUrl: string;
let sandboxUrl: string;

async function startProcess(name: string, entry: string, env: NodeJS.ProcessEnv, readyPath: string) {
  const port = await findFreePort();
  const service = runService(name, entry, {
    LOG_LEVEL: 'warn',
    ...env,
    [`${name.toUpperCase()}_PORT`]: String(port),
  });
  started.push(service);
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}${readyPath}`, service, 90_000);
  return url;
}

beforeAll(async () => {
  sandboxUrl = await startProcess('sandbox', 'src/sandbox/main.ts', {}, '/sandbox/deliveries');
  started.push(await startWorkerProcess(taskQueue, sandboxUrl));
  apiUrl = await startProcess(
    'api',
    'src/api/main.ts',
    {
      TEMPORAL_ADDRESS: temporalAddress(),
      TEMPORAL_TASK_QUEUE: taskQueue,
      PAYPAL_BASE_URL: sandboxUrl,
      PAYLOAD_CODEC_KEYS: TEST_CODEC_KEYS_ENV,
      API_KEYS: API_KEY,
      API_METRICS_PORT: String(await findFreePort()),
    },
    '/health',
  );
}, 180_000);

afterAll(async () => {
  await Promise.all(started.map((service) => service.stop()));
});

it('starts a lifecycle through the API process and captures it at the sandbox process, once', async () => {
  const provider = axios.create({ baseURL: sandboxUrl, validateStatus: () => true });
  const api = axios.create({
    baseURL: apiUrl,
    headers: { authorization: `Bearer ${API_KEY}` },
    validateStatus: () => true,
  });
  const authorization = await provider.post<{ id: string }>('/sandbox/authorizations', {
    amount: { currency_code: 'USD', value: '42.00' },
  });
  expect(authorization.status).toBe(201);
  const authorizationId = authorization.data.id;

  expect((await api.post('/v1/lifecycles', { authorizationId })).status).toBe(201);
  const captured = await api.post<{ id: string; amount: { value: string } }>(
    `/v1/lifecycles/${authorizationId}/capture`,
    { amount: '42.00' },
    { headers: { 'idempotency-key': randomUUID() } },
  );
  expect(captured.status).toBe(200);
  expect(captured.data.amount.value).toBe('42.00');

  const state = await api.get<{ status: string; capturedAmount: string }>(
    `/v1/lifecycles/${authorizationId}`,
  );
  expect(state.data).toMatchObject({ status: 'CAPTURED', capturedAmount: '42.00' });
  const held = await provider.get<{ captures: { id: string }[] }>(
    `/sandbox/authorizations/${authorizationId}/captures`,
  );
  expect(held.data.captures.map((capture) => capture.id)).toEqual([captured.data.id]);
});
