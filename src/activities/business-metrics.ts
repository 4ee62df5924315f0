import { Context } from '@temporalio/activity';
import type { MetricCounter, MetricMeter } from '@temporalio/common';

/**
 * The service's business counters, on the worker's Prometheus endpoint through the SDK's metric meter (the
 * activity context adds the namespace, taskQueue and activityType labels). Prometheus shows them under
 * exactly these names (the SDK's exporter adds no `_total`).
 */
export const businessCounters = {
  captures: ['payment_captures', 'captures by outcome: succeeded, refused, failed'],
  voids: ['payment_voids', 'voids by outcome: succeeded, refused, failed'],
  reauthorizations: ['payment_reauthorizations', 'reauthorizations by outcome: succeeded, refused, failed'],
  providerRefusals: ['payment_provider_refusals', 'final refusals by the provider, by issue and operation'],
  webhookVerifications: ['webhook_verifications', 'webhook signature checks by outcome and mode'],
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
    found = meter.createCounter(name, undefined, description);
    known.set(which, found);
  }
  return found;
}

/** Adds one to a business counter; outside an activity (plain unit calls) it does nothing. */
export function count(which: BusinessCounter, tags: Record<string, string>): void {
  let meter: MetricMeter;
  try {
    meter = Context.current().metricMeter;
  } catch {
    return;
  }
  counter(meter, which).add(1, tags);
}
