import { spawnSync } from 'node:child_process';

/** Whether Prometheus' promtool is on PATH (Debian's `prometheus` package; .ci/run installs it). */
export const promtoolInstalled = spawnSync('promtool', ['--version']).status === 0;

// prom-client's Node and process metrics on the API, left as they are (e.g. nodejs_active_handles_total, a
// gauge with a _total suffix). The worker's endpoint has none: all of it is checked.
const nodeProcessMetric = /^(nodejs_|process_)/;

/** What `promtool check metrics` finds in an exposition, without the findings about prom-client's metrics. */
export function promtoolFindings(exposition: string): string[] {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
  if (run.error) throw run.error;
  return `${run.stdout}${run.stderr}`
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !nodeProcessMetric.test(line));
}
