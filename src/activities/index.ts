import type { PaymentsProvider } from '../providers/port';
import { createPaymentsActivities, createProviderActivities } from './payments';
import type { CharactersClient } from '../characters/client';
import { createCharactersActivities } from './characters';
import { createWebhookActivities, type WebhookActivityOptions } from './webhooks';

// Every activity the worker hosts, built from the clients they wrap. Activities are the only code that does I/O.
export interface ActivityDependencies {
  /** The provider of the webhook activities, and of lifecycles that name none unless `providers` has PayPal's. */
  provider: PaymentsProvider;
  /** Every configured provider: each one's calls under its lifecycles' activity names (providerActivityName). */
  providers?: readonly PaymentsProvider[];
  characters: CharactersClient;
  webhooks: Omit<WebhookActivityOptions, 'provider'>;
}

export function createActivities(deps: ActivityDependencies) {
  return {
    ...createPaymentsActivities(deps.provider),
    ...(deps.providers ?? []).reduce<Record<string, unknown>>(
      (activities, provider) => ({ ...activities, ...createProviderActivities(provider) }),
      {},
    ),
    ...createCharactersActivities(deps.characters),
    ...createWebhookActivities({ provider: deps.provider, ...deps.webhooks }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
