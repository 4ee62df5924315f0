import { Context } from '@temporalio/activity';
import type { MetricCounter, MetricMeter } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';

/**
 * The service's business counters, on the worker's Prometheus endpoint through the SDK runtime's metric
 * meter. Names follow Prometheus' conventions: a counter ends in `_total`, which the worker's exporter adds
 * (src/workers/prometheus.ts), so the meter gets the name without it; labels are snake_case. The runtime's
 * meter, not the activity context's: the context's adds camelCase labels (`taskQueue`, `activityType`), so
 * `count` sets `namespace`, `task_queue` and `activity_type` itself.
 */
export const businessCounters = {
  captures: ['payment_captures_total', 'captures by outcome: succeeded, refused, failed'],
  voids: ['payment_voids_total', 'voids by outcome: succeeded, refused, failed'],
  reauthorizations: [
    'payment_reauthorizations_total',
    'reauthorizations by outcome: succeeded, refused, failed',
  ],
  providerRefusals: [
    'payment_provider_refusals_total',
    'final refusals by the provider, by issue and operation',
  ],
  webhookVerifications: ['webhook_verifications_total', 'webhook signature checks by outcome and mode'],
  ledgerDiscrepancies: [
    'ledger_discrepancies_total',
    'differences with the provider a reconciliation recorded in a lifecycle ledger, by provider and reason',
  ],
  ledgerDiscrepanciesResolved: [
    'ledger_discrepancies_resolved_total',
    'discrepancies a later reconciliation found the provider holds, by provider and reason',
  ],
} as const;

export type BusinessCounter = keyof typeof businessCounters;
export type CallOutcome = 'succeeded' | 'refused' | 'failed';

const counters = new WeakMap<MetricMeter, Map<BusinessCounter, MetricCounter>>();

function counter(meter: MetricMeter, which: BusinessCounter): MetricCounter {
  let known = counters.get(meter);
  if (!known) counters.set(meter, (known = new Map<BusinessCounter, MetricCounter>()));
  let found = known.get(which);
  if (!found) {
    const [name, description] = businessCounters[which];
    found = meter.createCounter(name.replace(/_total$/, ''), undefined, description);
    known.set(which, found);
  }
  return found;
}

/** Adds one to a business counter, labelled with the running activity; outside an activity it does nothing. */
export function count(which: BusinessCounter, labels: Record<string, string>): void {
  let info: Context['info'];
  try {
    info = Context.current().info;
  } catch {
    return;
  }
  counter(Runtime.instance().metricMeter, which).add(1, {
    namespace: info.namespace,
    task_queue: info.taskQueue,
    activity_type: info.activityType,
    ...labels,
  });
}
