import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { configVariableNames } from '../src/config';
import { cliSearchAttributeType } from '../src/dev/dev-server';
import { customSearchAttributes } from '../src/workflows/search-attributes';

// No Docker engine runs here, so the compose file is checked as data: the topology and its wiring.
interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  environment?: Record<string, unknown>;
  depends_on?: Record<string, unknown>;
}
const compose = parse(readFileSync(join(__dirname, '..', 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const services = compose.services;
const ownServices = Object.entries(services).filter(([, service]) => service.build !== undefined);

describe('docker-compose.yml', () => {
  it('has the production-like topology', () => {
    for (const name of [
      'postgresql',
      'temporal',
      'temporal-admin-tools',
      'temporal-ui',
      'worker',
      'api',
      'characters',
    ]) {
      expect(services).toHaveProperty(name);
    }
    expect(services.temporal?.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql' });
  });

  it('builds the service processes from the Dockerfile and points them at the compose Temporal server', () => {
    for (const name of ['worker', 'api']) {
      expect(services[name]?.build).toBe('.');
      expect(services[name]?.environment).toMatchObject({ TEMPORAL_ADDRESS: 'temporal:7233' });
    }
  });

  it('runs the characters store on the compose PostgreSQL and wires the worker to its services', () => {
    expect(services.characters?.environment?.DATABASE_URL).toMatch(/^postgres:\/\/.*@postgresql:5432\//);
    expect(services.worker?.environment).toMatchObject({
      CHARACTERS_URL: 'http://characters:8070/graphql',
      PAYMENTS_BASE_URL: 'http://sandbox:8090',
    });
  });

  it.each(ownServices)('%s sets only variables the config schema knows', (_name, service) => {
    const unknown = Object.keys(service.environment ?? {}).filter(
      (name) => !configVariableNames.includes(name),
    );
    expect(unknown).toEqual([]);
  });

  it.each(ownServices)('%s runs an entry point that exists', (_name, service) => {
    const command = Array.isArray(service.command) ? service.command : [];
    const entry = command.find((part) => part.startsWith('src/'));
    // Entry points are the main.ts files and src/cli/; a library file run directly does nothing.
    expect(entry).toMatch(/^src\/(cli\/.+|.+\/main)\.ts$/);
    expect(() => readFileSync(join(__dirname, '..', entry as string))).not.toThrow();
  });

  it('registers every custom search attribute the workflows use', () => {
    const admin = JSON.stringify(services['temporal-admin-tools']?.command);
    for (const key of customSearchAttributes) {
      expect(admin).toMatch(new RegExp(`\\b${key.name}=${cliSearchAttributeType[key.type]}\\b`));
    }
  });
});
