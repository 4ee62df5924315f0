import type { PaymentsProvider } from '../providers/port';
import { createPaymentsActivities } from './payments';
import type { CharactersClient } from '../characters/client';
import { createCharactersActivities } from './characters';
import { createWebhookActivities, type WebhookActivityOptions } from './webhooks';

// Every activity the worker hosts, built from the clients they wrap. Activities are the only code that does I/O.
export interface ActivityDependencies {
  provider: PaymentsProvider;
  characters: CharactersClient;
  webhooks: Omit<WebhookActivityOptions, 'provider'>;
}

export function createActivities(deps: ActivityDependencies) {
  return {
    ...createPaymentsActivities(deps.provider),
    ...createCharactersActivities(deps.characters),
    ...createWebhookActivities({ provider: deps.provider, ...deps.webhooks }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
