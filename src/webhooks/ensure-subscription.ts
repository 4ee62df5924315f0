import { dataConverterFromConfig } from '../codec/data-converter';
import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config';
import { temporalTarget, type TemporalEnvConfig } from '../temporal-env';
import type {
  ensureWebhookSubscription,
  removeWebhookSubscription,
} from '../workflows/webhooks/subscription';
import {
  ensureWebhookSubscriptionWorkflowType,
  removeWebhookSubscriptionWorkflowType,
  webhookSubscriptionWorkflowId,
  type WebhookSubscriptionInput,
  type WebhookSubscriptionRemoval,
  type WebhookSubscriptionResult,
} from '../workflows/webhooks/definitions';
import { webhookListenerUrl } from './listener-url';

/** Runs ensureWebhookSubscription; a run already under way is joined rather than repeated. */
export function ensureSubscription(
  client: Client,
  taskQueue: string,
  input: WebhookSubscriptionInput,
): Promise<WebhookSubscriptionResult> {
  return client.workflow.execute<typeof ensureWebhookSubscription>(ensureWebhookSubscriptionWorkflowType, {
    workflowId: webhookSubscriptionWorkflowId(input.listenerUrl),
    workflowIdConflictPolicy: 'USE_EXISTING',
    taskQueue,
    args: [input],
  });
}

/** Runs removeWebhookSubscription: deletes the listener's subscription when there is one. */
export function removeSubscription(
  client: Client,
  taskQueue: string,
  input: WebhookSubscriptionInput,
): Promise<WebhookSubscriptionRemoval> {
  return client.workflow.execute<typeof removeWebhookSubscription>(removeWebhookSubscriptionWorkflowType, {
    workflowId: webhookSubscriptionWorkflowId(input.listenerUrl),
    workflowIdConflictPolicy: 'FAIL',
    taskQueue,
    args: [input],
  });
}

/** What managing the listener's subscription reads: Temporal, the payload keys, the listener's URL. */
export type SubscriptionSettings = TemporalEnvConfig &
  Pick<
    Config,
    | 'TEMPORAL_TASK_QUEUE'
    | 'NODE_ENV'
    | 'PAYLOAD_CODEC_KEYS'
    | 'NEXUS_ENDPOINT_KEYS'
    | 'WEBHOOK_LISTENER_URL'
    | 'API_PORT'
  >;

/** Ensures (or with `remove`, deletes) the configured listener's subscription, through the worker. */
export async function manageSubscriptionFromConfig(
  config: SubscriptionSettings,
  action: 'ensure' | 'remove' = 'ensure',
): Promise<{ listenerUrl: string } & (WebhookSubscriptionResult | WebhookSubscriptionRemoval)> {
  const temporal = temporalTarget(config);
  const connection = await Connection.connect(temporal.connection);
  try {
    const client = new Client({
      connection,
      namespace: temporal.namespace,
      dataConverter: dataConverterFromConfig(config),
    });
    const input = { listenerUrl: webhookListenerUrl(config) };
    const run = action === 'remove' ? removeSubscription : ensureSubscription;
    return { listenerUrl: input.listenerUrl, ...(await run(client, config.TEMPORAL_TASK_QUEUE, input)) };
  } finally {
    await connection.close();
  }
}
