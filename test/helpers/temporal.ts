import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { encryptingDataConverter } from '../../src/codec/data-converter';
import { EncryptionCodec, type CodecKey } from '../../src/codec/payload-encryption';
import { runService, waitForLine, type ServiceProcess } from '../../src/dev/child-process';
import { findFreePort } from '../../src/dev/ports';

/**
 * The key every test client and worker encrypts payloads with, so the whole suite runs on encrypted
 * histories as the service does (a fixed test-only key: test/histories/ holds histories written with it).
 */
export const TEST_CODEC_KEY: CodecKey = {
  id: 'test',
  key: Buffer.from('dGVzdC1vbmx5LXBheWxvYWQta2V5LTMyLWJ5dGVzISE=', 'base64'),
};
/** PAYLOAD_CODEC_KEYS for processes the tests start. */
export const TEST_CODEC_KEYS_ENV = `${TEST_CODEC_KEY.id}:${TEST_CODEC_KEY.key.toString('base64')}`;
export const testCodec = new EncryptionCodec([TEST_CODEC_KEY]);
export const testDataConverter = encryptingDataConverter(testCodec);

/** The `orders` namespace's Nexus endpoint key for worker processes the tests start (never the key above). */
export const TEST_ORDERS_ENDPOINT_KEY: CodecKey = {
  id: 'test-orders-endpoint',
  key: Buffer.from('dGVzdC1vbmx5LW9yZGVycy1lbmRwb2ludC1rZXkhISE=', 'base64'),
};
/** NEXUS_ENDPOINT_KEYS for those processes. */
export const TEST_ENDPOINT_KEYS_ENV = `orders=${TEST_ORDERS_ENDPOINT_KEY.id}:${TEST_ORDERS_ENDPOINT_KEY.key.toString('base64')}`;
/** The order system's data converter: its endpoint key only. */
export const testOrdersDataConverter = encryptingDataConverter(
  new EncryptionCodec([TEST_ORDERS_ENDPOINT_KEY]),
);

/** The dev server started by global-setup.ts. */
export function temporalAddress(): string {
  const address = process.env.TEMPORAL_ADDRESS;
  if (!address) throw new Error('TEMPORAL_ADDRESS is not set: run the tests through jest (global-setup.ts)');
  return address;
}

export async function connectClient(
  address = temporalAddress(),
): Promise<{ client: Client; close: () => Promise<void> }> {
  const connection = await Connection.connect({ address });
  return {
    client: new Client({ connection, dataConverter: testDataConverter }),
    close: () => connection.close(),
  };
}

export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomUUID()}`;
}

/** A test worker's options: everything but its connection and its workflow code (the shared bundle). */
export type TestWorkerOptions = Omit<WorkerOptions, 'connection' | 'workflowBundle' | 'workflowsPath'>;

/** Creates a worker on the shared bundle (bundled once per run) and a native connection to a dev server. */
export async function createTestWorker(
  options: TestWorkerOptions,
  address = temporalAddress(),
): Promise<{ worker: Worker; close: () => Promise<void> }> {
  const codePath = process.env.TEST_WORKFLOW_BUNDLE;
  if (!codePath)
    throw new Error('TEST_WORKFLOW_BUNDLE is not set: run the tests through jest (global-setup.ts)');
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    dataConverter: testDataConverter,
    ...options,
    connection,
    workflowBundle: { codePath },
  });
  return { worker, close: () => connection.close() };
}

/**
 * Creates a worker as `createTestWorker` does and runs it until `stop`, which also closes its connection. A second
 * `stop` while the first still drains the worker waits for the same shutdown (the SDK refuses a second one).
 */
export async function runTestWorker(
  options: TestWorkerOptions,
  address = temporalAddress(),
): Promise<{ stop: () => Promise<void> }> {
  const { worker, close } = await createTestWorker(options, address);
  const done = worker.run();
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        worker.shutdown();
        await done;
        await close();
      })();
      return stopped;
    },
  };
}

/** Runs `body` while a worker polls `taskQueue`, then shuts the worker down. */
export async function withWorker<T>(options: TestWorkerOptions, body: () => Promise<T>): Promise<T> {
  const { worker, close } = await createTestWorker(options);
  try {
    return await worker.runUntil(body);
  } finally {
    await close();
  }
}

/**
 * The service's own worker process (src/workers/main.ts) on the dev server, the shared bundle and the test
 * key, polling `taskQueue` once answered; `env` adds to its environment.
 */
export async function startWorkerProcess(
  taskQueue: string,
  paymentsBaseUrl: string,
  env: Record<string, string> = {},
): Promise<ServiceProcess> {
  const worker = runService('worker', 'src/workers/main.ts', {
    TEMPORAL_ADDRESS: temporalAddress(),
    TEMPORAL_TASK_QUEUE: taskQueue,
    PAYPAL_BASE_URL: paymentsBaseUrl,
    WORKFLOW_BUNDLE_PATH: process.env.TEST_WORKFLOW_BUNDLE,
    WORKER_METRICS_PORT: String(await findFreePort()),
    LOG_LEVEL: 'info',
    PAYLOAD_CODEC_KEYS: TEST_CODEC_KEYS_ENV,
    // The test callers in `orders` hold the test key (test/integration/nexus-callers.test.ts keeps them apart).
    NEXUS_ENDPOINT_KEYS: `orders=${TEST_CODEC_KEYS_ENV}`,
    ...env,
  });
  try {
    await waitForLine(worker, 'worker polling');
  } catch (error) {
    await worker.stop();
    throw error;
  }
  return worker;
}
