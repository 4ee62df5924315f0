import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../../config';
import { DEFAULT_NAMESPACE } from '../../temporal-env';
import { WEBHOOK_ROUTE } from '../../webhooks/listener-url';
import { runCommand, waitForHttp, type ServiceProcess } from '../child-process';
import { assertPortFree } from '../ports';
import { ServiceStartup, announced } from '../service-startup';
import { resolveClusterBinaries } from './binaries';
import {
  clientTlsConfig,
  clientTlsEnv,
  writeClusterCertificates,
  writeClusterProfile,
  type ClusterCertificates,
} from './certificates';
import {
  forgetClusterMembers,
  postgresServer,
  prepareCharactersDatabase,
  prepareDatabases,
  temporalDatabases,
} from './databases';
import {
  INTERNAL_FRONTEND,
  SYSTEM_WORKER_CLIENT,
  serverPortsFrom,
  servicesOf,
  writeServerConfig,
  type ServerPorts,
} from './server-config';
import { startServiceProcesses, type ServiceProcesses, type ServiceWiring } from './service-processes';
import {
  hostAndPort,
  hostPort,
  linkedProcessEnv,
  linksAnnouncement,
  startClusterLinks,
  throughLink,
  type ClusterLinks,
} from './links';
import { startTemporalCluster, type TemporalCluster } from './temporal-cluster';
import { startTokenIssuer, type TokenIssuer } from './token-issuer';
import { startCodecTls, type CodecTls } from './oidc-codec-tls';
import { apiLoginEnv, oidcUiClient, startOidcLogin, uiLoginEnv, type OidcLogin } from './oidc-login';

/** The PostgreSQL the cluster's databases live on when DATABASE_URL names none: the local server, trust auth. */
export const DEFAULT_CLUSTER_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** The cluster's own processes: two workers and two APIs, so that either of each can fail. */
export const REPLICAS = 2;
export const NUM_HISTORY_SHARDS = 4;
const DYNAMIC_CONFIG_FILE = resolve(__dirname, '..', '..', '..', 'deploy', 'temporal-dynamic-config.yaml');

export interface ClusterPorts {
  server: ServerPorts;
  ui: number;
  sandbox: number;
  characters: number;
  apis: number[];
  apiMetrics: number[];
  workerMetrics: number[];
}

/** `npm run cluster`'s ports: the variables `npm start` reads; the second API and worker take the next port. */
export function clusterPortsFromConfig(config: Config): ClusterPorts {
  const replicas = (first: number) => Array.from({ length: REPLICAS }, (_, i) => first + i);
  return {
    server: serverPortsFrom(config.TEMPORAL_DEV_PORT),
    ui: config.TEMPORAL_UI_PORT,
    sandbox: config.SANDBOX_PORT,
    characters: config.CHARACTERS_PORT,
    apis: replicas(config.API_PORT),
    apiMetrics: replicas(config.API_METRICS_PORT),
    workerMetrics: replicas(config.WORKER_METRICS_PORT),
  };
}

// Ports for stacks beside others (tests, benchmarks) come from 20,000 to 31,999, in blocks of 2,000: below the
// OS's ephemeral range (32,768 and up), so no outgoing connection takes one between its pick and its bind;
// below 32,768 too because Temporal stores membership ports in a PostgreSQL smallint. Stacks that start at once
// take blocks of their own.
const PORTS_FROM = 20_000;
const PORTS_PER_BLOCK = 2_000;
const PORT_BLOCKS = 6;

/** Free ports of one block, in turn from a random one, each checked free when picked. */
function blockPorts(block: number): () => Promise<number> {
  const from = PORTS_FROM + (block % PORT_BLOCKS) * PORTS_PER_BLOCK;
  let offset = Math.floor(Math.random() * PORTS_PER_BLOCK);
  return async () => {
    for (let tried = 0; tried < PORTS_PER_BLOCK; tried += 1) {
      const port = from + (offset++ % PORTS_PER_BLOCK);
      try {
        await assertPortFree(port, 'a cluster port', '');
        return port;
      } catch {
        // taken: the next one
      }
    }
    throw new Error(`no free port in ${from}..${from + PORTS_PER_BLOCK - 1}`);
  };
}

/** Free ports for a stack beside others; stacks that start at the same time give different `block`s. */
export async function freeClusterPorts(block = 0): Promise<ClusterPorts> {
  const free = blockPorts(block);
  const pair = async () => ({ grpc: await free(), membership: await free() });
  const many = async () => {
    const ports: number[] = [];
    for (let replica = 0; replica < REPLICAS; replica += 1) ports.push(await free());
    return ports;
  };
  return {
    server: {
      frontend: await pair(),
      history: await pair(),
      matching: await pair(),
      worker: await pair(),
      [INTERNAL_FRONTEND]: await pair(),
      frontendHttp: await free(),
      internalFrontendHttp: await free(),
    },
    ui: await free(),
    sandbox: await free(),
    characters: await free(),
    apis: await many(),
    apiMetrics: await many(),
    workerMetrics: await many(),
  };
}

export interface ClusterStackOptions {
  config: Config;
  ports: ClusterPorts;
  /** Generated server config and the workflow bundle go here. */
  dataDir: string;
  /** The Temporal databases' PostgreSQL (its host, port and role; the database name is ignored). */
  databaseUrl: string;
  /** The Temporal databases' names: `<prefix>` and `<prefix>_visibility` (default `temporal`). */
  databasePrefix?: string;
  /** Start the Web UI server (default true). */
  ui?: boolean;
  /** A provider to use instead of starting the sandbox process. */
  paymentsBaseUrl?: string;
  /** Start the characters service (default true). */
  characters?: boolean;
  /**
   * mTLS on the frontend: certificates generated at start under `<dataDir>/tls`, one client certificate per
   * process; a client without one is refused.
   */
  tls?: boolean;
  /**
   * Temporal's default authorizer (implies `tls`): a JWKS served by this process, a token per process naming
   * only what it may do (`<namespace>:write` for the workers and APIs, `temporal-system:admin` for the
   * tooling), and the internal frontend for the server's own calls.
   */
  authorizer?: boolean;
  /**
   * Operators log in to the Web UI through a local OpenID provider (src/dev/cluster/oidc-login.ts); the UI
   * forwards each one's access token to the codec server, which decodes only for the scope `codec` (given to
   * `codecOperators`, default every login). With `authorizer`, Temporal accepts the provider's keys too.
   */
  oidc?: { codecOperators?: readonly string[] };
  /**
   * Toxiproxy on the links that can fail without a process dying (src/dev/cluster/links.ts): worker ↔
   * frontend, API ↔ frontend, history ↔ PostgreSQL, activities ↔ provider, provider → webhook intake.
   * `apiPort`: Toxiproxy's API (default a free port).
   */
  links?: boolean | { apiPort?: number };
  /** The server's dynamic config file; default deploy/temporal-dynamic-config.yaml. */
  dynamicConfigFile?: string;
  /** Each Temporal service's connections to its default store, all but visibility (default: Temporal's 20). */
  postgresConnectionsPerService?: number;
  /** Where the webhook subscription delivers; default API 1's route. */
  webhookListenerUrl?: string;
  /** More variables for the workers and the APIs. */
  appEnv?: NodeJS.ProcessEnv;
  /** Each process's output lines; default the console, prefixed with the process's name. */
  output?: (name: string, line: string) => void;
  /** Progress lines; default console.log. */
  progress?: (line: string) => void;
}

export interface ClusterStack extends ServiceProcesses {
  temporal: TemporalCluster;
  temporalAddress: string;
  /** With `tls`: the CA and the client certificates (`tooling` for clients of the cluster's user). */
  certificates?: ClusterCertificates;
  /** With `tls`: temporal.toml with the profile `cluster`, for the `temporal` CLI. */
  profileFile?: string;
  /** With `authorizer`: mints tokens the server accepts (e.g. `orders:write` for the order system). */
  tokenIssuer?: TokenIssuer;
  /** With `oidc`: the operators' OpenID provider. */
  oidc?: OidcLogin;
  uiUrl?: string;
  /** With `links`: each link's proxy, and its toxics. */
  links?: ClusterLinks;
  paymentsBaseUrl: string;
  charactersUrl?: string;
}

/**
 * A Temporal cluster on PostgreSQL and the service on it: databases and schemas, the four server services as
 * separate processes, the namespace and search attributes, the Web UI server, the sandbox and characters
 * services, two workers and two APIs. Used by `npm run cluster`, the cluster tests and `npm run bench:chaos`.
 */
export async function startClusterStack(options: ClusterStackOptions): Promise<ClusterStack> {
  const { config, ports } = options;
  // The cluster's own namespace: a profile names the servers it points at, not this one.
  const namespace = config.TEMPORAL_NAMESPACE ?? DEFAULT_NAMESPACE;
  const startup = new ServiceStartup({ progress: options.progress, output: options.output });
  const { progress } = startup;
  const output = (name: string) =>
    options.output ? (line: string) => options.output?.(name, line) : undefined;
  const services: ServiceProcess[] = [];
  let app: ServiceProcesses | undefined;
  let temporal: TemporalCluster | undefined;
  let tokenIssuer: TokenIssuer | undefined;
  let oidc: OidcLogin | undefined;
  let codecTls: CodecTls | undefined;
  let links: ClusterLinks | undefined;

  const stop = async () => {
    await app?.stop();
    await Promise.all(services.map((service) => service.stop()));
    await startup.stop();
    await temporal?.stop();
    await tokenIssuer?.close();
    await oidc?.process.stop();
    await codecTls?.close();
    await links?.stop();
  };

  try {
    const binaries = await resolveClusterBinaries();
    const processNames = ['worker', 'api'].flatMap((kind) =>
      Array.from({ length: REPLICAS }, (_, i) => `${kind}-${i + 1}`),
    );
    const certificates =
      options.tls || options.authorizer
        ? await writeClusterCertificates(join(options.dataDir, 'tls'), [
            SYSTEM_WORKER_CLIENT,
            'tooling',
            'ui',
            'orders',
            ...processNames,
          ])
        : undefined;
    const toolingTls = certificates && clientTlsConfig(certificates, 'tooling');
    tokenIssuer = options.authorizer ? await startTokenIssuer() : undefined;
    const issuer = tokenIssuer;
    const token = (name: string, permissions: string[]) =>
      issuer ? { TEMPORAL_API_KEY: issuer.token(name, permissions) } : {};
    const toolingToken = token('tooling', ['temporal-system:admin']).TEMPORAL_API_KEY;
    if (issuer) {
      const dir = join(options.dataDir, 'auth');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'tooling.jwt'), `${toolingToken}\n`, { mode: 0o600 });
      writeFileSync(join(dir, 'orders.jwt'), `${issuer.token('orders', ['orders:write'])}\n`, {
        mode: 0o600,
      });
      progress(
        announced(
          'Authorizer',
          `tokens from ${issuer.jwksUrl}; ${dir}/tooling.jwt (temporal-system:admin), ` +
            `${dir}/orders.jwt (orders:write)`,
        ),
      );
    }
    const uiUrl = options.ui === false ? undefined : `http://localhost:${ports.ui}`;
    const uiClient = uiUrl && options.oidc ? oidcUiClient(uiUrl) : undefined;
    if (options.oidc) {
      oidc = await startOidcLogin({
        clients: uiClient ? [uiClient] : [],
        codecOperators: options.oidc.codecOperators,
        // The UI calls Temporal with the operator's token. It lists namespaces and reads the cluster's info,
        // which Temporal's default authorizer allows only with a system role: operators read every namespace.
        temporalPermissions: issuer ? ['temporal-system:read'] : [],
        log: output('oidc'),
      });
      progress(announced('Operators login', `${oidc.issuer} (any login and password; JWKS ${oidc.jwksUrl})`));
    }
    const login = oidc;
    const postgres = postgresServer(options.databaseUrl);
    const databases = temporalDatabases(options.databasePrefix);
    await prepareDatabases(binaries.sql, postgres, databases, progress);
    await forgetClusterMembers(postgres, databases);
    const serverConfig = {
      serverModuleDir: binaries.serverModuleDir,
      postgres,
      databases,
      ports: ports.server,
      numHistoryShards: NUM_HISTORY_SHARDS,
      dynamicConfigFile: options.dynamicConfigFile ?? DYNAMIC_CONFIG_FILE,
      postgresConnectionsPerService: options.postgresConnectionsPerService,
      file: join(options.dataDir, 'temporal-server.yaml'),
      tls: certificates,
      authorizer: issuer && { jwksUrl: issuer.jwksUrl, operatorsJwksUrl: login?.jwksUrl },
    };
    const configFile = writeServerConfig(serverConfig);
    if (options.links) {
      links = await startClusterLinks({
        apiPort: typeof options.links === 'object' ? options.links.apiPort : undefined,
        log: output('toxiproxy'),
      });
    }
    // Only the history service reaches PostgreSQL through its link: a config of its own.
    const historyPostgres =
      links && (await links.add('history-postgres', `${postgres.host}:${postgres.port}`));
    const serviceConfigFiles = historyPostgres
      ? {
          history: writeServerConfig({
            ...serverConfig,
            postgres: { ...postgres, ...hostAndPort(historyPostgres) },
            file: join(options.dataDir, 'temporal-server-history.yaml'),
          }),
        }
      : undefined;
    progress(`Starting Temporal: frontend, history, matching and worker services (config ${configFile})…`);
    temporal = await startTemporalCluster({
      serverBinary: binaries.server,
      configFile,
      serviceConfigFiles,
      ports: ports.server,
      namespace,
      tls: toolingTls,
      apiKey: toolingToken,
      services: servicesOf({ authorizer: issuer }),
      log: output('temporal'),
      onSearchAttributesAdded: (names) => progress(`Search attributes added: ${names.join(', ')}`),
    });
    const temporalAddress = temporal.address;
    progress(
      `Temporal frontend: ${temporalAddress} (history ${ports.server.history.grpc}, matching ` +
        `${ports.server.matching.grpc}, worker ${ports.server.worker.grpc}; ${NUM_HISTORY_SHARDS} shards, ` +
        `namespace ${namespace}${certificates ? '; mTLS: a client certificate signed by its CA required' : ''})`,
    );
    const profileFile =
      certificates &&
      writeClusterProfile(join(options.dataDir, 'tls'), certificates, {
        address: temporalAddress,
        namespace,
      });
    if (profileFile) {
      progress(
        announced('Temporal CLI', `TEMPORAL_CONFIG_FILE=${profileFile} TEMPORAL_PROFILE=cluster temporal …`),
      );
    }

    const api1 = `http://127.0.0.1:${ports.apis[0]}`;
    if (uiUrl) {
      // The UI passes an operator's token only to an https codec endpoint.
      codecTls = login ? await startCodecTls(api1, join(options.dataDir, 'oidc')) : undefined;
      const ui = runCommand(
        'temporal-ui',
        binaries.uiServer,
        ['--root', binaries.uiServerModuleDir, '--config', 'config', '--env', 'docker', 'start'],
        {
          TEMPORAL_ADDRESS: temporalAddress,
          TEMPORAL_UI_PORT: String(ports.ui),
          TEMPORAL_DEFAULT_NAMESPACE: namespace,
          // Payloads shown decoded through API 1's codec server (POST /codec/encode, /codec/decode).
          TEMPORAL_CODEC_ENDPOINT:
            process.env.TEMPORAL_CODEC_ENDPOINT || codecTls?.endpoint || `${api1}/codec`,
          ...(certificates && {
            TEMPORAL_TLS_CA: certificates.caFile,
            TEMPORAL_TLS_CERT: certificates.clients.ui?.certFile,
            TEMPORAL_TLS_KEY: certificates.clients.ui?.keyFile,
            TEMPORAL_TLS_SERVER_NAME: certificates.serverName,
            TEMPORAL_TLS_ENABLE_HOST_VERIFICATION: 'true',
          }),
          ...(login && uiClient && uiLoginEnv(login, uiClient)),
        },
        { log: output('temporal-ui') },
      );
      services.push(ui);
      await waitForHttp(`http://127.0.0.1:${ports.ui}/`, ui);
      progress(announced('Temporal Web UI', uiUrl));
      if (codecTls) {
        progress(
          announced(
            'Codec for the UI',
            `${codecTls.endpoint} → API 1 (self-signed: trust ${codecTls.certFile}, or open the URL once and accept it)`,
          ),
        );
      }
    }

    const base = { TEMPORAL_ADDRESS: temporalAddress, TEMPORAL_NAMESPACE: namespace };
    const paymentsBaseUrl =
      options.paymentsBaseUrl ??
      (await startup.sandbox(ports.sandbox, { ...base, SANDBOX_PORT: String(ports.sandbox) }));
    const charactersUrl =
      options.characters === false
        ? undefined
        : await startup.characters(
            ports.characters,
            {
              ...base,
              CHARACTERS_PORT: String(ports.characters),
              DATABASE_URL: await prepareCharactersDatabase(postgres, options.databasePrefix),
            },
            `on its own role and database ${options.databasePrefix ?? 'temporal'}_characters`,
          );

    const listenerUrl = options.webhookListenerUrl ?? `${api1}${WEBHOOK_ROUTE}`;
    // The provider delivers through its link: the subscription names the link's address.
    const webhookListenerUrl = links
      ? throughLink(listenerUrl, await links.add('provider-webhooks', hostPort(listenerUrl)))
      : listenerUrl;
    const linkEnv = links && (await linkedProcessEnv(links, { temporalAddress, paymentsBaseUrl }));
    // Stripe's calls go through the provider's link too when Stripe is the provider it leads to.
    const stripeBaseUrl = options.appEnv?.STRIPE_BASE_URL;
    const stripeThroughLink =
      links && stripeBaseUrl && hostPort(stripeBaseUrl) === hostPort(paymentsBaseUrl)
        ? throughLink(stripeBaseUrl, links.address('activities-provider'))
        : undefined;
    if (links) progress(announced('Links (Toxiproxy)', linksAnnouncement(links)));
    const wiring: ServiceWiring = {
      temporalAddress,
      namespace,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      paymentsBaseUrl,
      charactersUrl,
      webhookListenerUrl,
    };
    app = await startServiceProcesses({
      wiring,
      apiPorts: ports.apis,
      apiMetricsPorts: ports.apiMetrics,
      workerMetricsPorts: ports.workerMetrics,
      bundlePath: join(options.dataDir, 'workflow-bundle.js'),
      appEnv: options.appEnv,
      processEnv: (name) => ({
        ...(certificates && clientTlsEnv(certificates, name)),
        ...token(name, name === 'tooling' ? ['temporal-system:admin'] : [`${namespace}:write`]),
        ...(login && name.startsWith('api-') && apiLoginEnv(login, uiUrl ? [uiUrl] : [])),
        ...linkEnv?.(name),
        ...(stripeThroughLink && name.startsWith('worker-') && { STRIPE_BASE_URL: stripeThroughLink }),
      }),
      output: options.output,
      progress,
    });
    await startup.nexus(
      { address: temporalAddress, tls: toolingTls, apiKey: toolingToken },
      {
        namespace,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
      },
    );
    const own = app;
    return {
      ...app,
      temporal,
      temporalAddress,
      certificates,
      profileFile,
      tokenIssuer,
      oidc,
      uiUrl,
      links,
      paymentsBaseUrl,
      charactersUrl,
      processes: () => [
        ...(links ? [links.toxiproxy.process] : []),
        ...(temporal?.processes() ?? []),
        ...services,
        ...(oidc ? [oidc.process] : []),
        ...startup.processes(),
        ...own.processes(),
      ],
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
