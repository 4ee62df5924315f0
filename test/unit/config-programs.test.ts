import {
  ConfigError,
  configSchema,
  loadApiConfig,
  loadCharactersConfig,
  loadConfig,
  loadLocalStackConfig,
  loadSandboxConfig,
  loadWorkerConfig,
  productionSettingsOf,
} from '../../src/config';
import { programSchemas } from '../../src/config/programs';

const production = {
  NODE_ENV: 'production',
  API_KEYS: 'k'.repeat(40),
  PAYLOAD_CODEC_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
  WEBHOOK_CERT_HOSTS: 'api.paypal.com',
  PAYPAL_BASE_URL: 'https://api-m.paypal.com',
  PAYPAL_CLIENT_ID: 'prod-client',
  PAYPAL_CLIENT_SECRET: 'prod-secret',
};

describe('a configuration per program', () => {
  it('reads in each program only variables the whole service knows', () => {
    const known = Object.keys(configSchema.shape);
    for (const schema of Object.values(programSchemas))
      expect(Object.keys(schema.shape).filter((name) => !known.includes(name))).toEqual([]);
  });

  it('lets every variable be read by some program', () => {
    const read = new Set(Object.values(programSchemas).flatMap((schema) => Object.keys(schema.shape)));
    expect(Object.keys(configSchema.shape).filter((name) => !read.has(name))).toEqual([]);
  });

  it('parses only its own variables: a bad value of another program’s stops only that program', () => {
    const env = { PAYPAL_BASE_URL: 'not a url', API_PORT: 'eighty' };
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadCharactersConfig(env, productionSettingsOf.characters)).not.toThrow();
    expect(() => loadSandboxConfig({ API_PORT: 'eighty' }, productionSettingsOf.sandbox)).not.toThrow();
    expect(() => loadWorkerConfig(env, productionSettingsOf.worker)).toThrow(/PAYPAL_BASE_URL/);
    expect(() => loadApiConfig(env, productionSettingsOf.api)).toThrow(/API_PORT/);
  });

  it('keeps the defaults of the local stack in every program', () => {
    const all = loadConfig({});
    const programs = [
      loadApiConfig({}, []),
      loadWorkerConfig({}, []),
      loadSandboxConfig({}, []),
      loadCharactersConfig({}, []),
      loadLocalStackConfig({}),
    ];
    for (const program of programs) expect(all).toMatchObject(program);
  });

  it('refuses in each program what the whole configuration refuses for that program', () => {
    const weak = { ...production, PAYPAL_CLIENT_SECRET: 'sandbox-secret', API_KEYS: 'dev-api-key' };
    const refusal = (load: () => unknown) => {
      try {
        load();
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(refusal(() => loadWorkerConfig(weak, productionSettingsOf.worker))).toMatch(
      /PAYPAL_CLIENT_SECRET: the sandbox's secret/,
    );
    expect(refusal(() => loadApiConfig(weak, productionSettingsOf.api))).toBe(
      refusal(() => loadConfig(weak, productionSettingsOf.api)),
    );
    expect(refusal(() => loadSandboxConfig(weak, productionSettingsOf.sandbox))).toMatch(
      /PAYPAL_CLIENT_SECRET: the sandbox's secret/,
    );
    expect(() => loadApiConfig({ ...production, NODE_ENV: 'development' }, [])).not.toThrow();
    expect(refusal(() => loadApiConfig({ NODE_ENV: 'production' }, productionSettingsOf.api))).toMatch(
      /API_KEYS: required[\s\S]*WEBHOOK_CERT_HOSTS: required[\s\S]*PAYLOAD_CODEC_KEYS: required/,
    );
  });
});
