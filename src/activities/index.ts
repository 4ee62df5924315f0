import type { PaymentsProvider } from '../providers/port';
import { createPaymentsActivities } from './payments';
import type { CharactersClient } from '../characters/client';
import { createCharactersActivities } from './characters';
import { createWebhookActivities, type WebhookActivityOptions } from './webhooks';

// Every activity the worker hosts, built from the clients they wrap. Activities are the only code that does I/O.
export interface ActivityDependencies {
  payments: PaymentsProvider;
  characters: CharactersClient;
  webhooks: Omit<WebhookActivityOptions, 'payments'>;
}

export function createActivities(deps: ActivityDependencies) {
  return {
    ...createPaymentsActivities(deps.payments),
    ...createCharactersActivities(deps.characters),
    ...createWebhookActivities({ payments: deps.payments, ...deps.webhooks }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
