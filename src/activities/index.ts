import type { PaymentsClient } from '../payments/client';
import { createPaymentsActivities } from './payments';
import type { CharactersClient } from '../characters/client';
import { createCharactersActivities } from './characters';

// Every activity the worker hosts, built from the clients they wrap. Activities are the only code that does I/O.
export interface ActivityDependencies {
  payments: PaymentsClient;
  characters: CharactersClient;
}

export function createActivities(deps: ActivityDependencies) {
  return {
    ...createPaymentsActivities(deps.payments),
    ...createCharactersActivities(deps.characters),
  };
}

export type Activities = ReturnType<typeof createActivities>;
