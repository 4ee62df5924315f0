import { ApplicationFailure, log, proxyActivities } from '@temporalio/workflow';
import type { PaymentsActivities } from '../../activities/payments';
import type { Webhook } from '../../providers/resources';
import type {
  WebhookSubscriptionInput,
  WebhookSubscriptionRemoval,
  WebhookSubscriptionResult,
} from './definitions';

/**
 * Calls the operator waits on while the subscription is ensured or removed (`npm start`, the webhooks CLI):
 * a bounded number of attempts, so a provider that keeps failing fails the run and the operator learns why.
 */
const operatorCalls = proxyActivities<PaymentsActivities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 10,
  },
});

export const NO_SUBSCRIBABLE_EVENT_TYPES = 'NO_SUBSCRIBABLE_EVENT_TYPES';

/**
 * Makes sure the provider delivers the events the lifecycle acts on to the listener: creates the
 * subscription for the listener URL, or replaces its event types when they differ. Safe to run again.
 */
export async function ensureWebhookSubscription(
  input: WebhookSubscriptionInput,
): Promise<WebhookSubscriptionResult> {
  const choice = await operatorCalls.listWebhookEventTypes();
  const offered = new Set(choice.offered);
  const eventTypes = choice.needed.filter((name) => offered.has(name)).sort();
  const notOffered = choice.needed.filter((name) => !offered.has(name));
  if (notOffered.length > 0) log.info('event types the provider does not offer', { notOffered });
  if (eventTypes.length === 0) {
    throw ApplicationFailure.create({
      type: NO_SUBSCRIBABLE_EVENT_TYPES,
      message: `the provider offers none of the event types the lifecycle handles (${choice.needed.join(', ')})`,
      nonRetryable: true,
    });
  }

  const existing = await subscriptionFor(input);
  if (!existing) {
    const created = await operatorCalls.createWebhook({
      url: input.listenerUrl,
      event_types: eventTypes.map((name) => ({ name })),
    });
    return { webhookId: created.id, action: 'created', eventTypes, notOffered };
  }
  const current = existing.event_types.map((type) => type.name).sort();
  if (current.join() === eventTypes.join()) {
    return { webhookId: existing.id, action: 'unchanged', eventTypes, notOffered };
  }
  await operatorCalls.updateWebhook({
    webhookId: existing.id,
    fields: [{ op: 'replace', path: '/event_types', value: eventTypes.map((name) => ({ name })) }],
  });
  return { webhookId: existing.id, action: 'updated', eventTypes, notOffered };
}

/** Deletes the listener's subscription, if there is one. */
export async function removeWebhookSubscription(
  input: WebhookSubscriptionInput,
): Promise<WebhookSubscriptionRemoval> {
  const existing = await subscriptionFor(input);
  if (!existing) return { action: 'absent' };
  await operatorCalls.deleteWebhook(existing.id);
  return { webhookId: existing.id, action: 'deleted' };
}

async function subscriptionFor(input: WebhookSubscriptionInput): Promise<Webhook | undefined> {
  const { webhooks } = await operatorCalls.listWebhooks(input.anchorType);
  return webhooks.find((webhook) => webhook.url === input.listenerUrl);
}
