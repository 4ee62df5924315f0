import type { MetricsExporterConfig } from '@temporalio/worker';

/**
 * The worker's Prometheus endpoint, served by the SDK runtime: the SDK's own metrics and the business
 * counters. Counters end in `_total` and durations are in seconds with the unit in the name, as Prometheus'
 * conventions (and `promtool check metrics`) want; the SDK's defaults are neither.
 */
export function workerPrometheusExporter(bindAddress: string): MetricsExporterConfig {
  return {
    prometheus: {
      bindAddress,
      countersTotalSuffix: true,
      unitSuffix: true,
      useSecondsForDurations: true,
    },
  };
}
