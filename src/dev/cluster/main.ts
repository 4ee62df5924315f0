import { loadConfig } from '../../config';
import { assertPortsFree } from '../ports';
import { TOXIPROXY_DEFAULT_PORT } from '../toxiproxy';
import { superviseStack } from '../child-process';
import {
  DEFAULT_CLUSTER_DATABASE_URL,
  clusterPortsFromConfig,
  startClusterStack,
  type ClusterStack,
} from './stack';

/**
 * `npm run cluster`: a Temporal cluster on PostgreSQL (frontend, history, matching and worker as separate
 * processes), its Web UI, and the service on it with two workers and two APIs. Ctrl-C stops everything;
 * a re-run reuses the databases and every workflow in them. `npm run cluster -- --tls`: the frontend on mTLS,
 * every process with a client certificate of its own (src/dev/cluster/certificates.ts). `-- --authorizer`:
 * that, and Temporal's default authorizer, each process with a token naming its namespace
 * (src/dev/cluster/token-issuer.ts) and an internal frontend for the server's own calls, and `--oidc`.
 * `-- --oidc`: operators log in to the Web UI through a local OpenID provider, which decodes payloads with
 * each operator's own token (src/dev/cluster/oidc-login.ts). `-- --links`: Toxiproxy
 * on the links between hosts (src/dev/cluster/links.ts), its API on 8474 (`TOXIPROXY_PORT`) for
 * `toxiproxy-cli` or curl.
 */
async function main() {
  const config = loadConfig();
  const ports = clusterPortsFromConfig(config);
  const databaseUrl = config.DATABASE_URL ?? DEFAULT_CLUSTER_DATABASE_URL;
  // A dev tool's port, not the service's configuration: read here only.
  const toxiproxyPort = Number(process.env.TOXIPROXY_PORT || TOXIPROXY_DEFAULT_PORT);
  let stack: ClusterStack | undefined;
  const supervisor = superviseStack('cluster', async () => {
    await stack?.stop();
  });

  try {
    await assertPortsFree([
      { port: ports.server.frontend.grpc, what: 'the Temporal frontend', variable: 'TEMPORAL_DEV_PORT' },
      {
        port: ports.server.history.grpc,
        what: 'the Temporal history service',
        variable: 'TEMPORAL_DEV_PORT',
      },
      {
        port: ports.server.matching.grpc,
        what: 'the Temporal matching service',
        variable: 'TEMPORAL_DEV_PORT',
      },
      { port: ports.server.worker.grpc, what: 'the Temporal worker service', variable: 'TEMPORAL_DEV_PORT' },
      ...(process.argv.includes('--authorizer')
        ? [
            {
              port: ports.server['internal-frontend'].grpc,
              what: 'the Temporal internal frontend',
              variable: 'TEMPORAL_DEV_PORT',
            },
          ]
        : []),
      ...(process.argv.includes('--links')
        ? [{ port: toxiproxyPort, what: "Toxiproxy's API", variable: 'TOXIPROXY_PORT' }]
        : []),
      { port: ports.ui, what: 'the Temporal Web UI', variable: 'TEMPORAL_UI_PORT' },
      { port: ports.sandbox, what: 'the payments sandbox', variable: 'SANDBOX_PORT' },
      { port: ports.characters, what: 'the characters service', variable: 'CHARACTERS_PORT' },
      ...ports.apis.map((port, i) => ({ port, what: `API ${i + 1}`, variable: 'API_PORT' })),
      ...ports.apiMetrics.map((port, i) => ({
        port,
        what: `the metrics of API ${i + 1}`,
        variable: 'API_METRICS_PORT',
      })),
      ...ports.workerMetrics.map((port, i) => ({
        port,
        what: `the metrics of worker ${i + 1}`,
        variable: 'WORKER_METRICS_PORT',
      })),
    ]);

    stack = await startClusterStack({
      config,
      ports,
      dataDir: '.data/cluster',
      databaseUrl,
      paymentsBaseUrl: config.PAYPAL_BASE_URL,
      tls: process.argv.includes('--tls'),
      authorizer: process.argv.includes('--authorizer'),
      // Under the authorizer the UI reaches Temporal only with an operator's token: it logs operators in.
      oidc: process.argv.includes('--oidc') || process.argv.includes('--authorizer') ? {} : undefined,
      links: process.argv.includes('--links') && { apiPort: toxiproxyPort },
    });
    console.log('The cluster is up. Ctrl-C stops it.');
    supervisor.watch(stack.processes());
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    await supervisor.stopAll(1);
  }
}

void main();
