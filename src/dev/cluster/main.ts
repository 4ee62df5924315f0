import { loadConfig } from '../../config';
import { assertPortFree } from '../ports';
import { superviseStack } from '../child-process';
import {
  DEFAULT_CLUSTER_DATABASE_URL,
  clusterPortsFromConfig,
  startClusterStack,
  type ClusterStack,
} from './stack';

/** The PostgreSQL `npm run cluster` uses when DATABASE_URL is not set. */

/**
 * `npm run cluster`: a Temporal cluster on PostgreSQL (frontend, history, matching and worker as separate
 * processes), its Web UI, and the service on it with two workers and two APIs. Ctrl-C stops everything;
 * a re-run reuses the databases and every workflow in them.
 */
async function main() {
  const config = loadConfig();
  const ports = clusterPortsFromConfig(config);
  const databaseUrl = config.DATABASE_URL ?? DEFAULT_CLUSTER_DATABASE_URL;
  let stack: ClusterStack | undefined;
  const supervisor = superviseStack('cluster', async () => {
    await stack?.stop();
  });

  try {
    const wanted: Array<[number, string, string]> = [
      [ports.server.frontend.grpc, 'the Temporal frontend', 'TEMPORAL_DEV_PORT'],
      [ports.server.history.grpc, 'the Temporal history service', 'TEMPORAL_DEV_PORT'],
      [ports.server.matching.grpc, 'the Temporal matching service', 'TEMPORAL_DEV_PORT'],
      [ports.server.worker.grpc, 'the Temporal worker service', 'TEMPORAL_DEV_PORT'],
      [ports.ui, 'the Temporal Web UI', 'TEMPORAL_UI_PORT'],
      [ports.sandbox, 'the payments sandbox', 'SANDBOX_PORT'],
      [ports.characters, 'the characters service', 'CHARACTERS_PORT'],
      ...ports.apis.map((port, i): [number, string, string] => [port, `API ${i + 1}`, 'API_PORT']),
      ...ports.workerMetrics.map((port, i): [number, string, string] => [
        port,
        `the metrics of worker ${i + 1}`,
        'WORKER_METRICS_PORT',
      ]),
    ];
    for (const [port, what, variable] of wanted) await assertPortFree(port, what, variable);

    stack = await startClusterStack({
      config,
      ports,
      dataDir: '.data/cluster',
      databaseUrl,
      paymentsBaseUrl: config.PAYMENTS_BASE_URL,
    });
    console.log('The cluster is up. Ctrl-C stops it.');
    supervisor.watch(stack.processes());
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    await supervisor.stopAll(1);
  }
}

void main();
