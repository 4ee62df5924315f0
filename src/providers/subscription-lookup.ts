import type { PaymentsProvider } from './port';

/** How long a found subscription id is kept before the provider is asked again. */
export const SUBSCRIPTION_CACHE_MS = 30_000;
/** How long a miss is kept: short, so a subscription made since is soon found, and a flood asks rarely. */
export const SUBSCRIPTION_MISS_CACHE_MS = 5_000;

/**
 * The id of the provider's subscription for `listenerUrl`, the one lookup the API and the worker share. A found
 * id is kept for SUBSCRIPTION_CACHE_MS, a miss for SUBSCRIPTION_MISS_CACHE_MS (npm start subscribes once the
 * API and the worker run: its first deliveries find it within seconds), and concurrent lookups share one
 * request, so deliveries ask the provider at most once per period whatever their rate. A failed lookup is not
 * kept. Without a listener URL, or subscriptions managed through the provider's API, it answers undefined.
 */
export function subscriptionLookup(
  provider: PaymentsProvider,
  listenerUrl: string | undefined,
  anchorType?: string,
): () => Promise<string | undefined> {
  let known: { webhookId: string | undefined; until: number } | undefined;
  let asking: Promise<string | undefined> | undefined;
  const ask = async (subscriptions: NonNullable<PaymentsProvider['subscriptions']>) => {
    const { webhooks } = await subscriptions.listWebhooks(anchorType);
    const webhookId = webhooks.find((webhook) => webhook.url === listenerUrl)?.id;
    const keptMs = webhookId === undefined ? SUBSCRIPTION_MISS_CACHE_MS : SUBSCRIPTION_CACHE_MS;
    known = { webhookId, until: Date.now() + keptMs };
    return webhookId;
  };
  return async () => {
    if (!listenerUrl || !provider.subscriptions) return undefined;
    if (known && known.until > Date.now()) return known.webhookId;
    asking ??= ask(provider.subscriptions).finally(() => {
      asking = undefined;
    });
    return asking;
  };
}
