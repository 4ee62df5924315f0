import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common';
import { DEV_CALLER_NAMESPACE } from '../nexus-callers';
import type { TemporalConnectionOptions } from '../temporal-env';
import { PAYMENTS_ENDPOINT } from './service';

/** The namespace of the example order workflows (examples/orders), which `npm start` creates. */
export const ORDERS_NAMESPACE = DEV_CALLER_NAMESPACE;

export interface PaymentsEndpoint {
  /** The endpoint's name, which callers pass to createNexusServiceClient. */
  name: string;
  /** Where its requests go: our namespace and the worker's task queue. */
  targetNamespace: string;
  targetTaskQueue: string;
}

/**
 * Creates the Nexus endpoint, or points the existing one of that name at the target (a dev server persisted
 * under .data/ keeps it across restarts, maybe with another task queue). The operator API, as
 * `temporal operator nexus endpoint create` uses it.
 */
export async function ensurePaymentsEndpoint(
  connection: Connection,
  endpoint: PaymentsEndpoint,
): Promise<void> {
  const spec = {
    name: endpoint.name,
    target: { worker: { namespace: endpoint.targetNamespace, taskQueue: endpoint.targetTaskQueue } },
  };
  const { endpoints } = await connection.operatorService.listNexusEndpoints({ name: endpoint.name });
  const existing = endpoints?.[0];
  if (!existing) {
    await connection.operatorService.createNexusEndpoint({ spec });
    return;
  }
  const target = existing.spec?.target?.worker;
  if (target?.namespace === endpoint.targetNamespace && target.taskQueue === endpoint.targetTaskQueue) return;
  await connection.operatorService.updateNexusEndpoint({ id: existing.id, version: existing.version, spec });
}

// gRPC NOT_FOUND.
const NOT_FOUND = 5;
const isNotFound = (error: unknown) => (error as { code?: unknown }).code === NOT_FOUND;

/**
 * Registers a namespace unless it exists (the dev server creates its own with `--namespace`); resolves once the
 * frontend serves it.
 */
export async function ensureNamespace(connection: Connection, namespace: string): Promise<void> {
  try {
    await connection.workflowService.describeNamespace({ namespace });
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('3 days'),
    });
    await untilServed(connection, namespace);
  }
}

/**
 * The lookup that found no namespace is cached by the server for a while (about a second on the dev server):
 * until it expires, starts and polls in the namespace just registered are refused NOT_FOUND. A task queue's
 * description goes through that cache without starting anything.
 */
async function untilServed(connection: Connection, namespace: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await connection.workflowService.describeTaskQueue({
        namespace,
        taskQueue: { name: 'namespace-probe' },
      });
      return;
    } catch (error) {
      if (!isNotFound(error)) throw error;
      if (Date.now() > deadline) {
        throw new Error(`namespace ${namespace} was registered but is not served after ${timeoutMs} ms`, {
          cause: error,
        });
      }
      await sleep(200);
    }
  }
}

/**
 * For `npm start` and `npm run cluster`: the `orders` namespace and the `payments` endpoint targeting the
 * worker's task queue; answers the line they print.
 */
export async function setUpPaymentsNexus(
  temporal: TemporalConnectionOptions,
  target: { namespace: string; taskQueue: string },
): Promise<string> {
  const connection = await Connection.connect(temporal);
  try {
    await ensureNamespace(connection, ORDERS_NAMESPACE);
    await ensurePaymentsEndpoint(connection, {
      name: PAYMENTS_ENDPOINT,
      targetNamespace: target.namespace,
      targetTaskQueue: target.taskQueue,
    });
  } finally {
    await connection.close();
  }
  return (
    `endpoint "${PAYMENTS_ENDPOINT}" → ${target.namespace}/${target.taskQueue}; ` +
    `callers' namespace "${ORDERS_NAMESPACE}" (examples/orders)`
  );
}
