import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every PromQL query of deploy/grafana's dashboard. */
export function dashboardQueries(): string[] {
  const file = join(__dirname, '..', '..', 'deploy', 'grafana', 'dashboards', 'payment-authorizations.json');
  const dashboard = JSON.parse(readFileSync(file, 'utf8')) as {
    panels: Array<{ targets: Array<{ expr: string }> }>;
  };
  return dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr));
}

/** The metrics a query takes the rate of. */
export function ratedMetrics(query: string): string[] {
  return [...query.matchAll(/rate\(([a-z_]+)\[/g)].map(([, metric]) => metric as string);
}
