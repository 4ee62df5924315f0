import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { ensureNamespace } from '../../src/nexus/endpoint';
import { temporalAddress } from '../helpers/temporal';

// `npm start` and `npm run cluster` register the orders namespace, and the order system starts workflows in it
// right away. The lookup that found it missing is cached by the server: without waiting it out, a start in the
// namespace just registered was refused "Namespace … is not found" for about a second.

let connection: Connection;

beforeAll(async () => {
  connection = await Connection.connect({ address: temporalAddress() });
});

afterAll(async () => {
  await connection?.close();
});

it('serves a namespace it registers by the time it resolves: a workflow starts in it at once', async () => {
  const namespace = `registered-${randomUUID()}`;
  await ensureNamespace(connection, namespace);
  const started = await connection.workflowService.startWorkflowExecution({
    namespace,
    workflowId: `first-${randomUUID()}`,
    workflowType: { name: 'orderPayment' },
    taskQueue: { name: `nobody-${randomUUID()}` },
    requestId: randomUUID(),
  });
  expect(started.runId).toBeTruthy();
});

it('leaves a namespace that exists as it is', async () => {
  const namespace = `registered-${randomUUID()}`;
  await ensureNamespace(connection, namespace);
  const before = await connection.workflowService.describeNamespace({ namespace });
  await ensureNamespace(connection, namespace);
  const after = await connection.workflowService.describeNamespace({ namespace });
  expect(after.namespaceInfo?.id).toBe(before.namespaceInfo?.id);
});
