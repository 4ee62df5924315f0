import { WorkflowFailedError } from '@temporalio/client';
import { ensureSubscription, removeSubscription } from '../../src/webhooks/ensure-subscription';
import { paypalLifecycleEventTypes } from '../../src/providers/paypal/payment-event';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

let stack: WebhookStack;

beforeAll(async () => {
  stack = await startWebhookStack();
});
afterAll(async () => {
  await stack?.close();
});

// What the lifecycle handles and the sandbox offers (GET /v1/notifications/webhooks-event-types).
const subscribable = [
  'PAYMENT.AUTHORIZATION.VOIDED',
  'PAYMENT.CAPTURE.COMPLETED',
  'PAYMENT.CAPTURE.DECLINED',
  'PAYMENT.CAPTURE.DENIED',
  'PAYMENT.CAPTURE.PENDING',
  'PAYMENT.CAPTURE.REFUNDED',
  'PAYMENT.CAPTURE.REVERSED',
];

async function subscribedTypes(webhookId: string): Promise<string[]> {
  const webhook = await stack.payments.getWebhook(webhookId);
  return webhook.event_types.map((type) => type.name).sort();
}

describe('ensureWebhookSubscription', () => {
  it('subscribed the stack listener to the lifecycle event types the provider offers', async () => {
    const { webhooks } = await stack.payments.listWebhooks();
    expect(webhooks).toEqual([expect.objectContaining({ id: stack.webhookId, url: stack.listenerUrl })]);
    expect(await subscribedTypes(stack.webhookId)).toEqual(subscribable);
  });

  it('creates, leaves alone, replaces differing event types, and deletes on request', async () => {
    const input = { listenerUrl: 'http://127.0.0.1:1/webhooks/payments?listener=second' };
    const created = await ensureSubscription(stack.client, stack.taskQueue, input);
    expect(created).toMatchObject({ action: 'created', eventTypes: subscribable });
    expect(created.notOffered.sort()).toEqual(
      paypalLifecycleEventTypes.filter((name) => !subscribable.includes(name)).sort(),
    );
    expect(await subscribedTypes(created.webhookId)).toEqual(subscribable);

    const again = await ensureSubscription(stack.client, stack.taskQueue, input);
    expect(again).toMatchObject({ action: 'unchanged', webhookId: created.webhookId });

    await stack.payments.updateWebhook(created.webhookId, [
      { op: 'replace', path: '/event_types', value: [{ name: 'PAYMENT.AUTHORIZATION.CREATED' }] },
    ]);
    const repaired = await ensureSubscription(stack.client, stack.taskQueue, input);
    expect(repaired).toMatchObject({ action: 'updated', webhookId: created.webhookId });
    expect(await subscribedTypes(created.webhookId)).toEqual(subscribable);

    expect(await removeSubscription(stack.client, stack.taskQueue, input)).toEqual({
      action: 'deleted',
      webhookId: created.webhookId,
    });
    expect((await stack.payments.listWebhooks()).webhooks.map((webhook) => webhook.id)).toEqual([
      stack.webhookId,
    ]);
    expect(await removeSubscription(stack.client, stack.taskQueue, input)).toEqual({ action: 'absent' });
  });

  it('looks in the anchor type it is given', async () => {
    const input = {
      listenerUrl: 'http://127.0.0.1:1/webhooks/payments?listener=account',
      anchorType: 'ACCOUNT',
    };
    await stack.provider.post('/sandbox/webhooks', {
      url: input.listenerUrl,
      event_types: subscribable.map((name) => ({ name })),
      anchor_type: 'ACCOUNT',
    });
    expect(await ensureSubscription(stack.client, stack.taskQueue, input)).toMatchObject({
      action: 'unchanged',
    });
    await expect(
      ensureSubscription(stack.client, stack.taskQueue, { ...input, anchorType: 'NOT_AN_ANCHOR' }),
    ).rejects.toBeInstanceOf(WorkflowFailedError);
  });
});
