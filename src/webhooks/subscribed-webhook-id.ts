import type { PaymentsProvider } from '../providers/port';

/**
 * The listener's subscription id: WEBHOOK_ID, or the provider's subscription of the listener URL, looked up at
 * most every 30 s (as the worker does).
 */
export function subscribedWebhookId(
  provider: PaymentsProvider,
  configured: string | undefined,
  listenerUrl: string | undefined,
): () => Promise<string | undefined> {
  let known: { id: string | undefined; until: number } | undefined;
  return async () => {
    if (configured) return configured;
    if (!listenerUrl || !provider.subscriptions) return undefined;
    if (known && known.until > Date.now()) return known.id;
    const { webhooks } = await provider.subscriptions.listWebhooks();
    known = { id: webhooks.find((webhook) => webhook.url === listenerUrl)?.id, until: Date.now() + 30_000 };
    return known.id;
  };
}
