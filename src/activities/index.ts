import type { PaymentsProvider } from '../providers/port';
import { createPaymentsActivities, createProviderActivities } from './payments';
import type { CharactersClient } from '../characters/client';
import { createCharactersActivities } from './characters';
import { createLedgerActivities } from './ledger';
import {
  createProviderWebhookActivities,
  createWebhookActivities,
  webhookProviderCalls,
  type WebhookActivityOptions,
} from './webhooks';

// Every activity the worker hosts, built from the clients they wrap. Activities are the only code that does I/O.
export interface ActivityDependencies {
  /** The provider of webhook subscriptions; also of every lifecycle and delivery when `providers` is not given. */
  provider: PaymentsProvider;
  /**
   * Every configured provider (default: `provider`): each one's lifecycle calls and webhook calls under the
   * names its lifecycles and deliveries schedule them by (providerActivityName).
   */
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
  'findCapture',
  'findRefund',
  'readHoldings',
]);

export function createActivities(deps: ActivityDependencies) {
  return { ...createPaymentsWorkerActivities(deps), ...createCharactersActivities(deps.characters) };
}

/**
 * The payments side of a worker: each provider's lifecycle and delivery calls under its names, the webhook
 * subscription calls of `provider`, and the calls that ask no provider (finding and signalling lifecycles).
 */
export function createPaymentsWorkerActivities(
  deps: Omit<ActivityDependencies, 'characters' | 'webhooks'> &
    Partial<Pick<ActivityDependencies, 'webhooks'>>,
): Record<string, unknown> {
  const payments: Record<string, unknown> = createPaymentsActivities(deps.provider);
  const webhooks: Record<string, unknown> = createWebhookActivities({
    provider: deps.provider,
    ...deps.webhooks,
  });
  // Each lifecycle's and each delivery's calls come from its own provider: a worker without PayPal leaves a
  // PayPal lifecycle's or delivery's calls unregistered (they wait for a worker that has them) rather than
  // send them to Stripe.
  const providers = deps.providers ?? [deps.provider];
  return {
    ...without(payments, lifecycleCalls),
    ...without(webhooks, new Set(webhookProviderCalls)),
    ...createLedgerActivities(),
    ...providers.reduce<Record<string, unknown>>(
      (activities, provider) => ({
        ...activities,
        ...createProviderActivities(provider),
        ...createProviderWebhookActivities({ provider, ...deps.webhooks }),
      }),
      {},
    ),
  };
}

function without(activities: Record<string, unknown>, names: ReadonlySet<string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(activities).filter(([name]) => !names.has(name)));
}

export type Activities = ReturnType<typeof createActivities>;
