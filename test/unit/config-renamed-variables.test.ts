import { loadConfig, productionSettingsOf } from '../../src/config';
import { charactersSchema, sandboxSchema } from '../../src/config/programs';
import { renamedVariables, underCurrentNames, warnOnce } from '../../src/config/renamed-variables';

const production = {
  NODE_ENV: 'production',
  API_KEYS: 'k'.repeat(40),
  PAYLOAD_CODEC_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
  WEBHOOK_CERT_HOSTS: 'api.paypal.com',
};

describe("PayPal's settings under their names before 1.0 (PAYMENTS_*)", () => {
  beforeEach(() => jest.spyOn(console, 'warn').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  it('reads each old name as its PayPal name', () => {
    const config = loadConfig({
      PAYMENTS_BASE_URL: 'http://127.0.0.1:8090',
      PAYMENTS_DIALECT: 'paypal',
      PAYMENTS_CLIENT_ID: 'old-client',
      PAYMENTS_CLIENT_SECRET: 'old-secret',
      PAYMENTS_ACCESS_TOKEN: 'old-token',
    });
    expect(config).toMatchObject({
      PAYPAL_BASE_URL: 'http://127.0.0.1:8090',
      PAYPAL_DIALECT: 'paypal',
      PAYPAL_CLIENT_ID: 'old-client',
      PAYPAL_CLIENT_SECRET: 'old-secret',
      PAYPAL_ACCESS_TOKEN: 'old-token',
    });
  });

  it('warns once per old name, naming the new one', () => {
    const { warnings } = underCurrentNames({ PAYMENTS_BASE_URL: 'http://x', PAYMENTS_CLIENT_ID: 'id' });
    expect(warnings).toEqual([
      'PAYMENTS_BASE_URL is read as PAYPAL_BASE_URL, its name from 1.0: set PAYPAL_BASE_URL instead',
      'PAYMENTS_CLIENT_ID is read as PAYPAL_CLIENT_ID, its name from 1.0: set PAYPAL_CLIENT_ID instead',
    ]);
    const lines: string[] = [];
    warnOnce(['an old name, told once'], (line) => lines.push(line));
    warnOnce(['an old name, told once'], (line) => lines.push(line));
    expect(lines).toEqual(['Configuration: an old name, told once']);
  });

  it('takes the new name when both are set, and says so', () => {
    const { env, warnings } = underCurrentNames({ PAYMENTS_DIALECT: 'spec', PAYPAL_DIALECT: 'paypal' });
    expect(env).toEqual({ PAYPAL_DIALECT: 'paypal' });
    expect(warnings).toEqual([
      'PAYMENTS_DIALECT and PAYPAL_DIALECT are both set: PAYPAL_DIALECT wins; PAYMENTS_DIALECT is its old name, drop it',
    ]);
    expect(loadConfig({ PAYMENTS_DIALECT: 'spec', PAYPAL_DIALECT: 'paypal' }).PAYPAL_DIALECT).toBe('paypal');
  });

  it('tells a program only of the old names it reads', () => {
    const env = { PAYMENTS_CLIENT_SECRET: 'characters-never-reads-it' };
    expect(underCurrentNames(env, Object.keys(charactersSchema.shape)).warnings).toEqual([]);
    expect(underCurrentNames(env, Object.keys(sandboxSchema.shape)).warnings).toHaveLength(1);
  });

  it('satisfies the production refusals under the old names', () => {
    const env = {
      ...production,
      PAYMENTS_BASE_URL: 'https://api-m.paypal.com',
      PAYMENTS_CLIENT_ID: 'prod-client',
      PAYMENTS_CLIENT_SECRET: 'prod-secret',
    };
    expect(() => loadConfig(env, productionSettingsOf.worker)).not.toThrow();
  });

  it('names a refused value by the name it was set under', () => {
    const env = {
      ...production,
      PAYMENTS_BASE_URL: 'http://api-m.paypal.com',
      PAYMENTS_CLIENT_ID: 'prod-client',
      PAYMENTS_CLIENT_SECRET: 'sandbox-secret',
    };
    expect(() => loadConfig(env, productionSettingsOf.worker)).toThrow(
      /PAYMENTS_CLIENT_SECRET: the sandbox's secret[\s\S]*PAYMENTS_BASE_URL: https only/,
    );
    expect(() => loadConfig({ PAYMENTS_DIALECT: 'stripe' })).toThrow(/PAYMENTS_DIALECT: .*"spec"\|"paypal"/);
  });

  it('renames only PayPal-only settings: the provider list and the timeout are both providers’', () => {
    expect(Object.values(renamedVariables)).not.toContain('PAYMENTS_PROVIDER');
    expect(Object.values(renamedVariables)).not.toContain('PAYMENTS_TIMEOUT_MS');
  });
});
