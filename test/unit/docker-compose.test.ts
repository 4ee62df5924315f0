import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { configVariableNames } from '../../src/config';
import { cliSearchAttributeType } from '../../src/dev/dev-server';
import { apiEnv, workerEnv, type ServiceWiring } from '../../src/dev/cluster/service-processes';
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
      ['api-1', apiEnv(wiring, 1)],
      ['api-2', apiEnv(wiring, 1)],
    ] as const) {
      const environment = services[name]?.environment ?? {};
      expect(Object.keys(environment)).toEqual(expect.arrayContaining(Object.keys(expected)));
      expect(environment).toMatchObject({ TEMPORAL_ADDRESS: 'temporal-frontend:7233' });
    }
    expect(services['worker-1']?.environment).toMatchObject({
      CHARACTERS_URL: 'http://characters:8070/graphql',
      PAYMENTS_BASE_URL: 'http://sandbox:8090',
    });
    expect(services['api-1']?.environment?.API_PORT).not.toEqual(services['api-2']?.environment?.API_PORT);
    expect(services['worker-1']?.environment?.WORKER_METRICS_PORT).not.toEqual(
      services['worker-2']?.environment?.WORKER_METRICS_PORT,
    );
  });

  it('runs the characters store on the compose PostgreSQL', () => {
    expect(services.characters?.environment?.DATABASE_URL).toMatch(/^postgres:\/\/.*@postgresql:5432\//);
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
    for (const name of ['API_KEYS', 'PAYLOAD_CODEC_KEYS', 'PAYMENTS_CLIENT_SECRET', 'POSTGRES_PASSWORD'])
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
