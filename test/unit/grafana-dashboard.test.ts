import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { businessCounters } from '../../src/activities/business-metrics';

const dashboard = JSON.parse(
  readFileSync(
    join(__dirname, '..', '..', 'deploy', 'grafana', 'dashboards', 'payment-authorizations.json'),
    'utf8',
  ),
) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };

describe('deploy/grafana dashboard', () => {
  const queries = dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr));

  it('charts every business counter and the API latency histogram', () => {
    for (const [name] of Object.values(businessCounters)) {
      expect(queries.some((query) => query.includes(`(${name}[`))).toBe(true);
    }
    expect(queries.some((query) => query.includes('api_request_duration_seconds_bucket'))).toBe(true);
  });

  it('queries only metrics the service exports', () => {
    const exported = new Set([
      ...Object.values(businessCounters).map(([name]) => name),
      'api_request_duration_seconds_bucket',
      'api_request_duration_seconds_count',
    ]);
    for (const query of queries) {
      for (const [, metric] of query.matchAll(/rate\(([a-z_]+)\[/g)) expect(exported).toContain(metric);
    }
  });
});
