import { spawnSync } from 'node:child_process';

/** Whether Prometheus' promtool is on PATH (Debian's `prometheus` package; .ci/run installs it). */
export const promtoolInstalled = spawnSync('promtool', ['--version']).status === 0;

// Metrics of the libraries, left as they are: the Temporal SDK's (temporal_*) and prom-client's Node and
// process metrics (e.g. nodejs_active_handles_total, a gauge with a _total suffix).
const builtInMetric = /^(temporal_|nodejs_|process_)/;

/** What `promtool check metrics` finds in an exposition, without the findings about built-in metrics. */
export function promtoolFindings(exposition: string): string[] {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
  if (run.error) throw run.error;
  return `${run.stdout}${run.stderr}`
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !builtInMetric.test(line));
}
