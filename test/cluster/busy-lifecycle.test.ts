import {
  driveBusyLifecycle,
  fiveRunsCounts as counts,
  runCount,
  unanswered,
} from '../helpers/busy-lifecycle';
import {
  createAuthorization,
  deliveriesSettled,
  startClusterHarness,
  startLifecycle,
  type ClusterHarness,
} from './harness';

// On the real cluster: a busy lifecycle, many keyed captures and refunds through the API, whose events the
// provider delivers through the webhook subscription while the lifecycle continues as new, sequentially and
// with 8 in flight. Every request gets its business answer; none a 5xx. Fewer requests than the dev-server
// suite's 500 keys with 8 in flight (test/integration/lifecycle-busy.test.ts, as many as a lifecycle keeps
// answers for): enough for five runs and more, on the cluster's links.

let cluster: ClusterHarness;

beforeAll(async () => {
  cluster = await startClusterHarness({ databasePrefix: 'temporal_cluster_busy' });
}, 600_000);

afterAll(async () => {
  await cluster?.close();
});

it.each([1, 8])(
  'answers every keyed capture and refund on a busy lifecycle, %i in flight',
  async (inFlight) => {
    const [api1, api2] = cluster.apis;
    const authorizationId = await createAuthorization(cluster.provider, '100.00');
    await startLifecycle(api1!, authorizationId);

    const answers = await driveBusyLifecycle({ api: api2!, authorizationId, inFlight, counts });
    await deliveriesSettled(cluster.sandbox);

    expect(unanswered(answers)).toEqual([]);
    // At least four continue-as-new boundaries: five runs.
    expect(await runCount(cluster.client, authorizationId)).toBeGreaterThanOrEqual(5);
    const state = (await api1!.get(`/v1/lifecycles/${authorizationId}`)).data as {
      captures: unknown[];
      refunds: unknown[];
    };
    expect(state.captures).toHaveLength(counts.captures + 1);
    expect(state.refunds).toHaveLength(counts.refunds);
  },
  600_000,
);
