import type { PaymentsProvider } from '../providers/port';
import { createPaymentsActivities, createProviderActivities } from './payments';
import type { CharactersClient } from '../characters/client';
import { createCharactersActivities } from './characters';
import { createWebhookActivities, type WebhookActivityOptions } from './webhooks';

// Every activity the worker hosts, built from the clients they wrap. Activities are the only code that does I/O.
export interface ActivityDependencies {
  /** The provider of the webhook activities; also of every lifecycle when `providers` is not given. */
  provider: PaymentsProvider;
  /** Every configured provider: each one's calls under its lifecycles' activity names (providerActivityName). */
  providers?: readonly PaymentsProvider[];
  characters: CharactersClient;
  webhooks: Omit<WebhookActivityOptions, 'provider'>;
}

/** The payments activities a lifecycle schedules; the others manage webhook subscriptions. */
const lifecycleCalls = new Set([
  'getAuthorization',
  'captureAuthorization',
  'voidAuthorization',
  'reauthorizeAuthorization',
  'refundCapture',
]);

export function createActivities(deps: ActivityDependencies) {
  const payments: Record<string, unknown> = createPaymentsActivities(deps.provider);
  // With `providers`, each lifecycle's calls come from its own provider: a worker without PayPal leaves a
  // PayPal lifecycle's calls unregistered (they wait for a worker that has them) rather than send them to Stripe.
  const subscriptions = deps.providers
    ? Object.fromEntries(Object.entries(payments).filter(([name]) => !lifecycleCalls.has(name)))
    : payments;
  return {
    ...subscriptions,
    ...(deps.providers ?? []).reduce<Record<string, unknown>>(
      (activities, provider) => ({ ...activities, ...createProviderActivities(provider) }),
      {},
    ),
    ...createCharactersActivities(deps.characters),
    ...createWebhookActivities({ provider: deps.provider, ...deps.webhooks }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
