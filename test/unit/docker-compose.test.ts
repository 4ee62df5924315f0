import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  configVariableNames,
  loadApiConfig,
  loadCharactersConfig,
  loadConfig,
  loadSandboxConfig,
  loadWorkerConfig,
  productionSettingsOf,
} from '../../src/config';
import { cliSearchAttributeType } from '../../src/dev/dev-server';
import {
  apiEnv,
  sharedServiceEnv,
  workerEnv,
  type ServiceWiring,
} from '../../src/dev/cluster/service-processes';
import { READINESS_PATH } from '../../src/readiness';
import { customSearchAttributes } from '../../src/workflows/search-attributes';

// No Docker engine runs here, so the compose file is checked as data: the topology and its wiring.
interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  environment?: Record<string, unknown>;
  depends_on?: Record<string, unknown>;
  ports?: string[];
  healthcheck?: { test?: string[] };
}
const root = join(__dirname, '..', '..');
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const services = compose.services;
const ownServices = Object.entries(services).filter(([, service]) => service.build !== undefined);
const temporalServices = ['frontend', 'history', 'matching', 'worker'];

// What `npm run cluster` hands its workers and APIs (src/dev/cluster/stack.ts).
const wiring: ServiceWiring = {
  temporalAddress: 'x:1',
  namespace: 'default',
  taskQueue: 'q',
  paymentsBaseUrl: 'http://x',
  charactersUrl: 'http://x/graphql',
  webhookListenerUrl: 'http://x/webhooks/payments',
};

/**
 * A service's environment in compose, each `${VAR:?…}` as a value the operator sets (the payload keys have a
 * form of their own).
 */
function operatorEnvironment(name: string): Record<string, string> {
  const operatorValue = (variable: string) =>
    variable === 'PAYLOAD_CODEC_KEYS'
      ? `k1:${Buffer.alloc(32, 7).toString('base64')}`
      : 'set-by-the-operator-openssl-rand-hex-32';
  return Object.fromEntries(
    Object.entries(services[name]?.environment ?? {}).map(([key, value]) => [
      key,
      String(value).replace(/\$\{([A-Z_]+):\?[^}]+\}/g, (_match, variable: string) =>
        operatorValue(variable),
      ),
    ]),
  );
}

describe('docker-compose.yml', () => {
  it('has the topology of `npm run cluster`', () => {
    for (const name of [
      'postgresql',
      'temporal-schema',
      ...temporalServices.map((service) => `temporal-${service}`),
      'temporal-namespace',
      'temporal-ui',
      'sandbox',
      'characters',
      'worker-1',
      'worker-2',
      'api-1',
      'api-2',
    ]) {
      expect(services).toHaveProperty(name);
    }
  });

  it('runs the Temporal server as four services on PostgreSQL with more than one history shard', () => {
    const images = new Set<string>();
    for (const service of temporalServices) {
      const definition = services[`temporal-${service}`] as ComposeService;
      images.add(definition.image as string);
      expect(definition.environment).toMatchObject({
        TEMPORAL_SERVICES: service,
        DB: 'postgres12',
        POSTGRES_SEEDS: 'postgresql',
      });
      expect(Number(definition.environment?.NUM_HISTORY_SHARDS)).toBeGreaterThan(1);
      expect(definition.depends_on).toHaveProperty('temporal-schema');
    }
    expect([...images]).toEqual([expect.stringMatching(/^temporalio\/server:1\.30\.\d+$/)]);
  });

  it('sets the schemas up with admin-tools, never the deprecated auto-setup image', () => {
    for (const service of Object.values(services)) expect(service.image ?? '').not.toMatch(/auto-setup/);
    const schema = services['temporal-schema'] as ComposeService;
    expect(schema.image).toMatch(/^temporalio\/admin-tools:/);
    const script = JSON.stringify(schema.command);
    for (const name of [
      'postgresql/v12/temporal',
      'postgresql/v12/visibility',
      'create-database',
      'update-schema',
    ]) {
      expect(script).toContain(name);
    }
  });

  it('points the Web UI at the frontend and its codec endpoint at the API', () => {
    expect(services['temporal-ui']?.environment).toMatchObject({
      TEMPORAL_ADDRESS: 'temporal-frontend:7233',
      TEMPORAL_CODEC_ENDPOINT: expect.stringMatching(/:8080\/codec$/) as unknown,
    });
  });

  it('gives the workers and APIs the variables `npm run cluster` gives them', () => {
    for (const [name, expected] of [
      ['worker-1', workerEnv(wiring, 1, 'b')],
      ['worker-2', workerEnv(wiring, 1, 'b')],
      ['api-1', apiEnv(wiring, 1, 2)],
      ['api-2', apiEnv(wiring, 1, 2)],
    ] as const) {
      const environment = services[name]?.environment ?? {};
      expect(Object.keys(environment)).toEqual(expect.arrayContaining(Object.keys(expected)));
      expect(environment).toMatchObject({ TEMPORAL_ADDRESS: 'temporal-frontend:7233' });
    }
    expect(services['worker-1']?.environment).toMatchObject({
      CHARACTERS_URL: 'http://characters:8070/graphql',
      PAYPAL_BASE_URL: 'http://sandbox:8090',
    });
    expect(services['api-1']?.environment?.API_PORT).not.toEqual(services['api-2']?.environment?.API_PORT);
    expect(services['worker-1']?.environment?.WORKER_METRICS_PORT).not.toEqual(
      services['worker-2']?.environment?.WORKER_METRICS_PORT,
    );
  });

  it('allows the provider’s origin as a certificate host, as `npm run cluster` does for its sandbox', () => {
    expect(services['worker-1']?.environment?.WEBHOOK_CERT_HOSTS).toBe('http://sandbox:8090');
    const env = sharedServiceEnv({ ...wiring, paymentsBaseUrl: 'http://127.0.0.1:41234' });
    expect(loadConfig(env).WEBHOOK_CERT_HOSTS).toContain('http://127.0.0.1:41234');
  });

  it('runs the characters store on the compose PostgreSQL, as its own role on its own database', () => {
    const url = String(services.characters?.environment?.DATABASE_URL);
    const [, username, password, database] =
      /^postgres:\/\/([^:]+):(.+)@postgresql:5432\/(\w+)$/.exec(url) ?? [];
    expect({ username, database }).toEqual({ username: 'characters', database: 'characters' });
    expect(password).toMatch(/^\$\{CHARACTERS_DATABASE_PASSWORD:\?/);
    // Not the superuser (POSTGRES_USER), not one of Temporal's databases.
    expect(username).not.toBe(services.postgresql?.environment?.POSTGRES_USER);
    expect(JSON.stringify(services['temporal-schema']?.command)).not.toMatch(/\bcharacters\b/);

    const setup = services['characters-database'] as ComposeService;
    expect(services.characters?.depends_on).toMatchObject({
      'characters-database': { condition: 'service_completed_successfully' },
    });
    const script = ([] as string[]).concat(setup.command ?? []).join(' ');
    expect(script).toContain('CREATE ROLE characters LOGIN');
    expect(script).toContain('NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD');
    expect(script).toContain('CREATE DATABASE characters OWNER characters');
    expect(script).toMatch(/REVOKE ALL ON DATABASE temporal, temporal_visibility/);
    // `$$` is compose's escape: the shell reads the variable, compose does not interpolate it.
    expect(script).toContain('-v password="$$CHARACTERS_DATABASE_PASSWORD"');
    expect(setup.environment?.CHARACTERS_DATABASE_PASSWORD).toMatch(/^\$\{CHARACTERS_DATABASE_PASSWORD:\?/);
  });

  it('hands each container only the secrets it uses', () => {
    const secretsOf = (service: ComposeService) =>
      [
        ...new Set(
          [...JSON.stringify(service.environment ?? {}).matchAll(/\$\{([A-Z_]+):\?/g)].map((m) => m[1]),
        ),
      ].sort();
    const temporal = ['POSTGRES_PASSWORD'];
    const expected: Record<string, string[]> = {
      postgresql: temporal,
      'temporal-schema': temporal,
      ...Object.fromEntries(temporalServices.map((service) => [`temporal-${service}`, temporal])),
      'temporal-namespace': [],
      'characters-database': ['CHARACTERS_DATABASE_PASSWORD', 'POSTGRES_PASSWORD'],
      'temporal-ui': [],
      sandbox: ['PAYPAL_CLIENT_SECRET'],
      characters: ['CHARACTERS_API_KEYS', 'CHARACTERS_DATABASE_PASSWORD'],
      'worker-1': ['CHARACTERS_API_KEYS', 'PAYLOAD_CODEC_KEYS', 'PAYPAL_CLIENT_SECRET'],
      'worker-2': ['CHARACTERS_API_KEYS', 'PAYLOAD_CODEC_KEYS', 'PAYPAL_CLIENT_SECRET'],
      'api-1': ['API_KEYS', 'PAYLOAD_CODEC_KEYS'],
      'api-2': ['API_KEYS', 'PAYLOAD_CODEC_KEYS'],
      'webhook-subscription': ['PAYLOAD_CODEC_KEYS'],
      prometheus: [],
      grafana: ['GRAFANA_ADMIN_PASSWORD'],
    };
    expect(
      Object.fromEntries(Object.entries(services).map(([name, service]) => [name, secretsOf(service)])),
    ).toEqual(expected);
  });

  it.each([
    ['sandbox', productionSettingsOf.sandbox],
    ['characters', productionSettingsOf.characters],
    ['worker-1', productionSettingsOf.worker],
    ['api-1', productionSettingsOf.api],
    ['webhook-subscription', productionSettingsOf.webhookSubscription],
  ] as const)('%s starts in production on what compose hands it', (name, uses) => {
    const env = operatorEnvironment(name);
    expect(env.NODE_ENV).toBe('production');
    expect(() => loadConfig(env, uses)).not.toThrow();
    for (const setting of uses) expect(Object.keys(env)).toContain(setting);
  });

  it.each([
    ['sandbox', loadSandboxConfig, productionSettingsOf.sandbox],
    ['characters', loadCharactersConfig, productionSettingsOf.characters],
    ['worker-1', loadWorkerConfig, productionSettingsOf.worker],
    ['api-1', loadApiConfig, productionSettingsOf.api],
  ] as const)(
    '%s starts in production on what compose hands it, through its own program’s schema',
    (name, load, uses) => {
      expect(() => load(operatorEnvironment(name), uses)).not.toThrow();
    },
  );

  it('pins every image by exact version', () => {
    for (const [name, service] of Object.entries(services)) {
      if (service.image === undefined) continue;
      // A full version (postgres: major.minor; the others: major.minor.patch), optionally with a digest.
      expect(`${name} ${service.image}`).toMatch(/:v?\d+\.\d+(\.\d+)?(@sha256:[0-9a-f]{64})?$/);
    }
    expect(services.postgresql?.image).toMatch(/^postgres:16\.\d+/);
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    for (const [, image] of dockerfile.matchAll(/^FROM (\S+)/gm)) {
      if (image === 'base') continue;
      expect(image).toMatch(/:\d+\.\d+\.\d+(-[a-z-]+)?(@sha256:[0-9a-f]{64})?$/);
    }
  });

  it('scrapes the APIs on their internal metrics port, not the public one', () => {
    const prometheus = readFileSync(join(root, 'deploy', 'prometheus', 'prometheus.yml'), 'utf8');
    for (const name of ['api-1', 'api-2']) {
      const environment = services[name]?.environment ?? {};
      expect(prometheus).toContain(`${name}:${String(environment.API_METRICS_PORT)}`);
      expect(prometheus).not.toContain(`${name}:${String(environment.API_PORT)}`);
      expect(services[name]?.ports?.join(' ')).not.toContain(String(environment.API_METRICS_PORT));
    }
  });

  it.each(ownServices)('%s sets only variables the config schema knows', (_name, service) => {
    const unknown = Object.keys(service.environment ?? {}).filter(
      (name) => !configVariableNames.includes(name),
    );
    expect(unknown).toEqual([]);
  });

  it.each(ownServices)('%s runs compiled JavaScript of an entry point that exists', (_name, service) => {
    const command = Array.isArray(service.command) ? service.command : [];
    expect(command[0]).toBe('node');
    expect(command).not.toContain('tsx');
    const entry = command.find((part) => part.startsWith('dist/'));
    expect(entry).toBeDefined();
    // tsconfig.build.json compiles src/x.ts to dist/x.js. Entry points are the main.ts files and src/cli/;
    // a library file run directly does nothing.
    const source = (entry as string).replace(/^dist\//, 'src/').replace(/\.js$/, '.ts');
    expect(source).toMatch(/^src\/(cli\/.+|.+\/main)\.ts$/);
    expect(existsSync(join(root, source))).toBe(true);
  });

  it('builds images that run the `npm run build` output, not tsx', () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/RUN npm run build && node dist\/cli\/build-workflow-bundle\.js/);
    expect(dockerfile).toMatch(/^CMD \["node", .*"dist\/workers\/main\.js"\]$/m);
    const scripts = (
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    expect(scripts.build).toMatch(/^tsc -p tsconfig\.build\.json/);
  });

  it('registers every custom search attribute the workflows use', () => {
    const admin = JSON.stringify(services['temporal-namespace']?.command);
    for (const key of customSearchAttributes) {
      expect(admin).toMatch(new RegExp(`\\b${key.name}=${cliSearchAttributeType[key.type]}\\b`));
    }
  });

  it('takes every secret from the environment and stops without it, never a committed value', () => {
    const secret = /PASSWORD|PWD|SECRET|_KEYS$|DATABASE_URL/;
    const seen = new Set<string>();
    for (const service of Object.values(services)) {
      for (const [name, value] of Object.entries(service.environment ?? {})) {
        if (!secret.test(name)) continue;
        seen.add(name);
        expect(`${name}=${String(value)}`).toMatch(/=(.*[^$])?\$\{[A-Z_]+:\?[^}]+\}/);
      }
    }
    for (const name of ['API_KEYS', 'PAYLOAD_CODEC_KEYS', 'PAYPAL_CLIENT_SECRET', 'POSTGRES_PASSWORD'])
      expect(seen).toContain(name);
  });

  it('publishes only the APIs on every interface, the UIs on 127.0.0.1, and Temporal not at all', () => {
    const published = Object.entries(services).filter(([, service]) => (service.ports ?? []).length > 0);
    for (const [name, service] of published) {
      for (const port of service.ports ?? []) {
        if (/^api-\d+$/.test(name)) continue;
        expect(`${name} ${port}`).toMatch(/ 127\.0\.0\.1:\d+:\d+$/);
      }
    }
    expect(published.map(([name]) => name).sort()).toEqual([
      'api-1',
      'api-2',
      'grafana',
      'prometheus',
      'temporal-ui',
    ]);
  });

  it('opens no keyless codec path and no anonymous Grafana', () => {
    for (const service of Object.values(services))
      expect(Object.keys(service.environment ?? {})).not.toContain('CODEC_UI_WITHOUT_KEY');
    expect(services.grafana?.environment?.GF_AUTH_ANONYMOUS_ENABLED).not.toBe('true');
    expect(String(services.grafana?.environment?.GF_SECURITY_ADMIN_PASSWORD)).toMatch(/^\$\{\w+:\?/);
  });

  it('checks the readiness of every HTTP service of ours on /health, as `npm start` waits for it', () => {
    for (const name of ['sandbox', 'characters', 'api-1', 'api-2']) {
      const check = (services[name]?.healthcheck?.test ?? []).join(' ');
      expect(`${name}: ${check}`).toMatch(new RegExp(`^${name}: CMD node .*\\${READINESS_PATH}\\b`));
    }
    expect(services['webhook-subscription']?.depends_on).toMatchObject({
      'api-1': { condition: 'service_healthy' },
      sandbox: { condition: 'service_healthy' },
    });
  });

  it('lets the other containers reach the sandbox: it listens on every interface of its container', () => {
    expect(services.sandbox?.environment).toMatchObject({ SANDBOX_HOST: '0.0.0.0' });
  });
});
