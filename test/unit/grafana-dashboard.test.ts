import { businessCounters } from '../../src/activities/business-metrics';
import { dashboardQueries, ratedMetrics } from '../helpers/grafana-dashboard';

describe('deploy/grafana dashboard', () => {
  const queries = dashboardQueries();

  it('charts every business counter and the API latency histogram', () => {
    for (const [name] of Object.values(businessCounters)) {
      expect(queries.some((query) => query.includes(`(${name}[`))).toBe(true);
    }
    expect(queries.some((query) => query.includes('api_request_duration_seconds_bucket'))).toBe(true);
  });

  // The SDK's own (temporal_*): test/e2e/operators-ui.test.ts finds them on a real worker's endpoint.
  it('queries only metrics the service exports', () => {
    const exported = new Set([
      ...Object.values(businessCounters).map(([name]) => name),
      'api_request_duration_seconds_bucket',
      'api_request_duration_seconds_count',
    ]);
    for (const metric of queries.flatMap(ratedMetrics))
      if (!metric.startsWith('temporal_')) expect(exported).toContain(metric);
  });
});
