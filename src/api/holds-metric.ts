import type { Client } from '@temporalio/client';
import { Gauge, type Registry } from 'prom-client';
import type { FastifyBaseLogger } from 'fastify';
import { expiryPolicies } from '../expiry-policies';
import type { ProviderName } from '../provider-names';
import { lifecycleWorkflowType } from '../workflows/lifecycle/definitions';
import type { HoldEndAction } from '../workflows/lifecycle/visibility';

const HOUR_MS = 60 * 60 * 1000;
const windows = { '24h': 24 * HOUR_MS, '72h': 72 * HOUR_MS } as const;
const actions: HoldEndAction[] = ['reauthorize', ...expiryPolicies];

/** The visibility query of open lifecycles on `provider` whose hold ends before `before`, doing `action` first. */
export function holdsEndingQuery(provider: ProviderName, action: HoldEndAction, before: Date): string {
  return [
    `WorkflowType = "${lifecycleWorkflowType}"`,
    'ExecutionStatus = "Running"',
    `PaymentProvider = "${provider}"`,
    `HoldEndAction = "${action}"`,
    `HoldEndsAt < "${before.toISOString()}"`,
  ].join(' AND ');
}

/**
 * `payment_holds_ending{namespace,provider,action,within}`: open lifecycles whose current hold ends within 24 or
 * 72 hours, by what the lifecycle does before that end (the HoldEndsAt and HoldEndAction search attributes),
 * counted in Temporal's visibility at each scrape. A count that fails is left out of that scrape and logged.
 */
export function recordHoldsEnding(
  registry: Registry,
  client: Client,
  providers: readonly ProviderName[],
  logger: FastifyBaseLogger,
): void {
  const namespace = client.options.namespace;
  new Gauge({
    name: 'payment_holds_ending',
    help: 'open lifecycles whose hold ends within the window, by provider and what runs before the end',
    labelNames: ['namespace', 'provider', 'action', 'within'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const now = Date.now();
      const counts = Object.entries(windows).flatMap(([within, ms]) =>
        providers.flatMap((provider) =>
          actions.map(async (action) => {
            const query = holdsEndingQuery(provider, action, new Date(now + ms));
            try {
              const { count } = await client.workflow.count(query);
              this.set({ namespace, provider, action, within }, count);
            } catch (error) {
              logger.warn({ err: error, query }, 'holds ending: visibility count failed');
            }
          }),
        ),
      );
      await Promise.all(counts);
    },
  });
}
