import { ConfigError, loadConfig, productionSettingsOf } from '../../src/config';

describe('TRUST_PROXY', () => {
  it('trusts no proxy by default', () => {
    expect(loadConfig({}).TRUST_PROXY).toEqual([]);
  });

  it('takes exact addresses and CIDRs, IPv4 and IPv6', () => {
    expect(loadConfig({ TRUST_PROXY: '10.0.0.7, 10.1.0.0/16,fd00::/8, ::1' }).TRUST_PROXY).toEqual([
      '10.0.0.7',
      '10.1.0.0/16',
      'fd00::/8',
      '::1',
    ]);
  });

  it.each(['true', '*', 'loopback', '0.0.0.0/0', '::/0', '10.0.0.0/33', 'proxy.internal', '10.0.0.1/8/1'])(
    'refuses %s at start, naming the variable',
    (value) => {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(ConfigError);
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY: addresses or CIDRs/);
    },
  );
});

describe('the doors’ other settings', () => {
  it('has budgets and an internal metrics port that run on a laptop by default', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      API_RATE_LIMIT_MAX: 1_000,
      API_CALLER_RATE_LIMIT_MAX: 6_000,
      WEBHOOK_RATE_LIMIT_MAX: 600,
      API_METRICS_PORT: 9470,
      API_METRICS_HOST: '127.0.0.1',
    });
    expect(config.API_DOCS).toBeUndefined();
    expect(loadConfig({ API_DOCS: 'true' }).API_DOCS).toBe(true);
    expect(() => loadConfig({ API_DOCS: 'yes' })).toThrow(/API_DOCS/);
  });
});

describe('production settings per process', () => {
  it('requires of each process only the settings it reads, naming the missing ones', () => {
    const env = { NODE_ENV: 'production', API_KEYS: 'k', WEBHOOK_CERT_HOSTS: 'api.paypal.com' };
    expect(() => loadConfig(env, productionSettingsOf.api)).toThrow(/PAYLOAD_CODEC_KEYS: required/);
    expect(() => loadConfig(env, productionSettingsOf.api)).not.toThrow(/PAYPAL_CLIENT_SECRET/);
    expect(() => loadConfig({ NODE_ENV: 'production' }, productionSettingsOf.characters)).not.toThrow();
    expect(() => loadConfig({ NODE_ENV: 'production' }, productionSettingsOf.sandbox)).toThrow(
      /PAYPAL_CLIENT_SECRET: required/,
    );
    // Without a list, every production setting is required, as before.
    expect(() => loadConfig(env)).toThrow(/PAYPAL_BASE_URL: required/);
  });
});
