import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import type { ClusterCertificates } from './certificates';
import type { PostgresServer, TemporalDatabases } from './databases';

export const temporalServices = ['frontend', 'history', 'matching', 'worker'] as const;
/**
 * With the authorizer on, the server's own callers (the worker service's system workflows) reach an internal
 * frontend that does not authorize, as the public frontend now refuses calls without a token.
 */
export const INTERNAL_FRONTEND = 'internal-frontend';
export type TemporalService = (typeof temporalServices)[number] | typeof INTERNAL_FRONTEND;

/** gRPC and membership (ringpop) ports of each service process; the frontend also serves HTTP. */
export type ServerPorts = Record<TemporalService, { grpc: number; membership: number }> & {
  frontendHttp: number;
  internalFrontendHttp: number;
};

/**
 * The usual layout around a frontend port: 7233 → history 7234, matching 7235, internal frontend 7236,
 * worker 7239, HTTP 7243 (the internal frontend's 7246).
 */
export function serverPortsFrom(frontend: number): ServerPorts {
  const at = (offset: number) => ({ grpc: frontend + offset, membership: frontend - 300 + offset });
  return {
    frontend: at(0),
    history: at(1),
    matching: at(2),
    [INTERNAL_FRONTEND]: at(3),
    worker: at(6),
    frontendHttp: frontend + 10,
    internalFrontendHttp: frontend + 13,
  };
}

export interface ServerConfigOptions {
  /** The server module in the Go module cache: the config is derived from its PostgreSQL example. */
  serverModuleDir: string;
  postgres: PostgresServer;
  databases: TemporalDatabases;
  ports: ServerPorts;
  numHistoryShards: number;
  /** Dynamic config file the server polls (deploy/temporal-dynamic-config.yaml). */
  dynamicConfigFile: string;
  /** Where the generated file goes. */
  file: string;
  /**
   * mTLS on the frontend: its certificate, client certificates required and checked against the CA; the
   * server's own system worker connects with the client certificate `temporal-system`.
   */
  tls?: ClusterCertificates;
  /**
   * Temporal's default authorizer and claim mapper on the frontend, its keys from this JWKS; the internal
   * frontend serves the server's own calls. `operatorsJwksUrl`: the operators' OpenID provider's keys too.
   */
  authorizer?: { jwksUrl: string; operatorsJwksUrl?: string };
  /**
   * At most this many connections from each service process to the default store (everything but visibility),
   * open or idle (default Temporal's example: 20). Two test clusters with the example's pools beside the unit
   * suites exceed PostgreSQL's default 100 connections.
   */
  postgresConnectionsPerService?: number;
}

/** The services a config runs: the four, and the internal frontend when the authorizer is on. */
export function servicesOf(options: { authorizer?: unknown }): TemporalService[] {
  return options.authorizer ? [...temporalServices, INTERNAL_FRONTEND] : [...temporalServices];
}

/** The client certificate the server's system worker (its internal workflows) presents to the frontend. */
export const SYSTEM_WORKER_CLIENT = 'temporal-system';

type Yaml = Record<string, unknown>;
const at = (node: Yaml, key: string) => node[key] as Yaml;

/**
 * Writes the server's config: Temporal's own `config/development-postgres12.yaml` from the module cache,
 * pointed at our PostgreSQL, ports and dynamic config. Metrics, pprof and archival are left out, so that
 * four processes can share one file on one host.
 */
export function writeServerConfig(options: ServerConfigOptions): string {
  const example = join(options.serverModuleDir, 'config', 'development-postgres12.yaml');
  const config = parse(readFileSync(example, 'utf8')) as Yaml;
  const { host, port, user, password } = options.postgres;

  config.log = { stdout: true, level: 'warn', format: 'console' };
  const persistence = at(config, 'persistence');
  persistence.numHistoryShards = options.numHistoryShards;
  for (const [store, database] of [
    ['postgres-default', options.databases.temporal],
    ['postgres-visibility', options.databases.visibility],
  ] as const) {
    Object.assign(at(at(at(persistence, 'datastores'), store), 'sql'), {
      databaseName: database,
      connectAddr: `${host}:${port}`,
      user,
      password,
    });
  }
  const perService = options.postgresConnectionsPerService;
  if (perService !== undefined)
    Object.assign(at(at(at(persistence, 'datastores'), 'postgres-default'), 'sql'), {
      maxConns: perService,
      maxIdleConns: perService,
    });
  config.global = {
    membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' },
    ...(options.tls && { tls: frontendTls(options.tls, Boolean(options.authorizer)) }),
    ...(options.authorizer && { authorization: authorization(options.authorizer) }),
  };
  for (const service of servicesOf(options)) {
    const { grpc, membership } = options.ports[service];
    const rpc: Yaml = { grpcPort: grpc, membershipPort: membership, bindOnLocalHost: true };
    if (service === 'frontend') rpc.httpPort = options.ports.frontendHttp;
    if (service === INTERNAL_FRONTEND) rpc.httpPort = options.ports.internalFrontendHttp;
    at(config, 'services')[service] = { rpc };
  }
  const metadata = at(config, 'clusterMetadata');
  const clusterName = metadata.currentClusterName as string;
  const cluster = at(at(metadata, 'clusterInformation'), clusterName);
  cluster.rpcAddress = `127.0.0.1:${options.ports.frontend.grpc}`;
  // Nexus reaches the frontend's HTTP API here (deploy/temporal-dynamic-config.yaml enables Nexus).
  cluster.httpAddress = `127.0.0.1:${options.ports.frontendHttp}`;
  delete config.archival;
  delete config.namespaceDefaults;
  config.dynamicConfigClient = { filepath: resolve(options.dynamicConfigFile), pollInterval: '10s' };

  mkdirSync(dirname(options.file), { recursive: true });
  writeFileSync(
    options.file,
    `# Generated by src/dev/cluster/server-config.ts from ${example}\n${stringify(config)}`,
  );
  return options.file;
}

/**
 * Temporal's `global.tls`: the frontend requires a client certificate its CA signed; internode stays plain,
 * except beside the internal frontend: its HTTP API (which history dispatches Nexus calls to) listens with the
 * frontend's TLS while history connects with the internode client's, so internode takes the same mTLS, the
 * frontend's certificate serving as each node's server and client certificate.
 */
/** How often the server reads its certificate files again (`global.tls.refreshInterval`). */
export const TLS_REFRESH_INTERVAL = '5s';

function frontendTls(certificates: ClusterCertificates, internode: boolean): Yaml {
  const system = certificates.clients[SYSTEM_WORKER_CLIENT];
  if (!system) throw new Error(`the cluster certificates have no ${SYSTEM_WORKER_CLIENT} client`);
  const mutual = {
    certFile: certificates.frontend.certFile,
    keyFile: certificates.frontend.keyFile,
    requireClientAuth: true,
    clientCaFiles: [certificates.caFile],
  };
  const client = { serverName: certificates.serverName, rootCaFiles: [certificates.caFile] };
  return {
    // The server reads its certificate files again at this interval: a renewed one needs no restart.
    refreshInterval: TLS_REFRESH_INTERVAL,
    ...(internode && { internode: { server: mutual, client } }),
    frontend: {
      server: {
        certFile: certificates.frontend.certFile,
        keyFile: certificates.frontend.keyFile,
        requireClientAuth: true,
        clientCaFiles: [certificates.caFile],
      },
    },
    systemWorker: {
      certFile: system.certFile,
      keyFile: system.keyFile,
      client: { serverName: certificates.serverName, rootCaFiles: [certificates.caFile] },
    },
  };
}

/** The default authorizer: a token's `permissions` claim (`<namespace>:<role>`) says what it may do where. */
function authorization(keys: { jwksUrl: string; operatorsJwksUrl?: string }): Yaml {
  const keySourceURIs = [keys.jwksUrl, ...(keys.operatorsJwksUrl ? [keys.operatorsJwksUrl] : [])];
  return {
    authorizer: 'default',
    claimMapper: 'default',
    permissionsClaimName: 'permissions',
    jwtKeyProvider: { keySourceURIs, refreshInterval: '1m' },
  };
}
