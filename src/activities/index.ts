import type { PaymentsClient } from '../payments/client';
import { createPaymentsActivities } from './payments';

// Every activity the worker hosts, built from the clients they wrap. Activities are the only code that does I/O.
export interface ActivityDependencies {
  payments: PaymentsClient;
}

export function createActivities(deps: ActivityDependencies) {
  return {
    ...createPaymentsActivities(deps.payments),
  };
}

export type Activities = ReturnType<typeof createActivities>;
