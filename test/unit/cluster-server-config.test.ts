import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { TEMPORAL_SERVER_VERSION } from '../../src/dev/cluster/binaries';
import { postgresServer, temporalDatabases } from '../../src/dev/cluster/databases';
import {
  serverPortsFrom,
  writeServerConfig,
  type ServerConfigOptions,
} from '../../src/dev/cluster/server-config';

// The cluster's server config is derived from Temporal's own PostgreSQL example in the Go module cache
// (present once `npm run cluster:binaries` has run, as CI does before `npm test`).
const serverModuleDir = join(
  execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim(),
  `go.temporal.io/server@${TEMPORAL_SERVER_VERSION}`,
);

/** The server config written for a cluster of 4 shards on 17233 and databases `temporal_x`, with `options`. */
function serverConfig(options: Partial<ServerConfigOptions> = {}): Record<string, any> {
  const file = join(mkdtempSync(join(tmpdir(), 'server-config-')), 'temporal.yaml');
  writeServerConfig({
    serverModuleDir,
    postgres: postgresServer('postgres://temporal@127.0.0.1:5432/ignored'),
    databases: temporalDatabases('temporal_x'),
    ports: serverPortsFrom(17233),
    numHistoryShards: 4,
    dynamicConfigFile: 'deploy/temporal-dynamic-config.yaml',
    file,
    ...options,
  });
  return parse(readFileSync(file, 'utf8')) as Record<string, any>;
}

describe('cluster server config', () => {
  const config = serverConfig({
    postgres: postgresServer('postgres://temporal:secret@db.example:6543/ignored'),
  });

  it('points both stores at the PostgreSQL and databases given, with more than one history shard', () => {
    const stores = config.persistence.datastores;
    expect(config.persistence.numHistoryShards).toBe(4);
    expect(stores['postgres-default'].sql).toMatchObject({
      pluginName: 'postgres12',
      databaseName: 'temporal_x',
      connectAddr: 'db.example:6543',
      user: 'temporal',
      password: 'secret',
    });
    expect(stores['postgres-visibility'].sql).toMatchObject({ databaseName: 'temporal_x_visibility' });
  });

  it('gives each of the four services its own gRPC and membership port on loopback', () => {
    expect(config.services).toEqual({
      frontend: { rpc: { grpcPort: 17233, membershipPort: 16933, httpPort: 17243, bindOnLocalHost: true } },
      history: { rpc: { grpcPort: 17234, membershipPort: 16934, bindOnLocalHost: true } },
      matching: { rpc: { grpcPort: 17235, membershipPort: 16935, bindOnLocalHost: true } },
      worker: { rpc: { grpcPort: 17239, membershipPort: 16939, bindOnLocalHost: true } },
    });
    expect(config.clusterMetadata.clusterInformation.active.rpcAddress).toBe('127.0.0.1:17233');
  });

  it('shares nothing four processes would fight over (metrics, pprof) and reads our dynamic config', () => {
    expect(config.global).toEqual({ membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' } });
    expect(config.archival).toBeUndefined();
    expect(config.dynamicConfigClient.filepath).toBe(
      join(process.cwd(), 'deploy/temporal-dynamic-config.yaml'),
    );
  });
});

it("caps each service's connections to the default store when asked, and keeps the example's otherwise", () => {
  const capped = serverConfig({ postgresConnectionsPerService: 8 }).persistence.datastores;
  const example = serverConfig().persistence.datastores;
  expect(capped['postgres-default'].sql).toMatchObject({ maxConns: 8, maxIdleConns: 8 });
  expect(capped['postgres-visibility'].sql).toMatchObject({ maxConns: 2 });
  expect(example['postgres-default'].sql).toMatchObject({ maxConns: 20, maxIdleConns: 20 });
});

describe('cluster server config with the authorizer', () => {
  const config = serverConfig({ authorizer: { jwksUrl: 'http://127.0.0.1:9999/.well-known/jwks.json' } });

  it("turns on Temporal's default authorizer and claim mapper on the JWKS given", () => {
    expect(config.global.authorization).toEqual({
      authorizer: 'default',
      claimMapper: 'default',
      permissionsClaimName: 'permissions',
      jwtKeyProvider: {
        keySourceURIs: ['http://127.0.0.1:9999/.well-known/jwks.json'],
        refreshInterval: '1m',
      },
    });
  });

  it("runs an internal frontend for the server's own calls", () => {
    expect(config.services['internal-frontend']).toEqual({
      rpc: { grpcPort: 17236, membershipPort: 16936, httpPort: 17246, bindOnLocalHost: true },
    });
  });
});
