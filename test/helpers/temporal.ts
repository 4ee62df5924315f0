import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';

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
  return { client: new Client({ connection }), close: () => connection.close() };
}

export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomUUID()}`;
}

/** Creates a worker on the shared bundle (bundled once per run) and a native connection to a dev server. */
export async function createTestWorker(
  options: Omit<WorkerOptions, 'connection' | 'workflowBundle' | 'workflowsPath'>,
  address = temporalAddress(),
): Promise<{ worker: Worker; close: () => Promise<void> }> {
  const codePath = process.env.TEST_WORKFLOW_BUNDLE;
  if (!codePath)
    throw new Error('TEST_WORKFLOW_BUNDLE is not set: run the tests through jest (global-setup.ts)');
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({ ...options, connection, workflowBundle: { codePath } });
  return { worker, close: () => connection.close() };
}

/** Runs `body` while a worker polls `taskQueue`, then shuts the worker down. */
export async function withWorker<T>(
  options: Omit<WorkerOptions, 'connection' | 'workflowBundle' | 'workflowsPath'>,
  body: () => Promise<T>,
): Promise<T> {
  const { worker, close } = await createTestWorker(options);
  try {
    return await worker.runUntil(body);
  } finally {
    await close();
  }
}
