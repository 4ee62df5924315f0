import { apiHost, ConfigError, loadConfig } from '../../src/config';

const PROD_KEY = 'prod-key-0123456789abcdef0123456789abcdef';

/** Everything production must set itself. */
const production = {
  NODE_ENV: 'production',
  API_KEYS: PROD_KEY,
  PAYPAL_BASE_URL: 'https://api-m.paypal.com',
  PAYPAL_CLIENT_ID: 'prod-client',
  PAYPAL_CLIENT_SECRET: 'prod-secret',
  WEBHOOK_CERT_HOSTS: 'api.paypal.com',
  PAYLOAD_CODEC_KEYS: `prod:${Buffer.alloc(32, 7).toString('base64')}`,
};

describe('loadConfig', () => {
  it('runs the local stack on defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config.TEMPORAL_ADDRESS).toBeUndefined();
    expect(config.TEMPORAL_UI_PORT).toBe(8233);
    expect(config.TEMPORAL_TASK_QUEUE).toBe('payment-authorizations');
    expect(config.PAYPAL_BASE_URL).toBeUndefined();
    expect(config.API_KEYS).toEqual(['dev-api-key']);
  });

  it('parses numbers and lists from strings and treats empty variables as unset', () => {
    const config = loadConfig({ API_PORT: '9090', API_KEYS: 'a, b,,c', TEMPORAL_ADDRESS: '' });
    expect(config.API_PORT).toBe(9090);
    expect(config.API_KEYS).toEqual(['a', 'b', 'c']);
    expect(config.TEMPORAL_ADDRESS).toBeUndefined();
  });

  it('caches 100 workflows per worker by default, so its memory stays bounded however many are open', () => {
    expect(loadConfig({}).WORKER_MAX_CACHED_WORKFLOWS).toBe(100);
    expect(loadConfig({ WORKER_MAX_CACHED_WORKFLOWS: '500' }).WORKER_MAX_CACHED_WORKFLOWS).toBe(500);
  });

  it('takes "0 seconds" as no late-event window', () => {
    expect(loadConfig({ LATE_EVENT_WINDOW: '0 seconds' }).LATE_EVENT_WINDOW).toBe('0 seconds');
  });

  it('bounds every duration to what a timer can hold, naming the variable and its maximum', () => {
    expect(() => loadConfig({ REAUTHORIZE_AFTER: '1000000 years' })).toThrow(
      /REAUTHORIZE_AFTER: .*at most 365 days/,
    );
    expect(() => loadConfig({ LATE_EVENT_WINDOW: '31 days' })).toThrow(
      /LATE_EVENT_WINDOW: .*at most 30 days/,
    );
    expect(() => loadConfig({ IDEMPOTENCY_KEY_RETENTION: '91 days' })).toThrow(
      /IDEMPOTENCY_KEY_RETENTION: .*at most 90 days/,
    );
    expect(() => loadConfig({ TIMER_CALL_TIMEOUT: '25 hours' })).toThrow(
      /TIMER_CALL_TIMEOUT: .*at most 1 day/,
    );
    expect(() => loadConfig({ EVENT_GRACE_PERIOD: '4 days' })).toThrow(
      /EVENT_GRACE_PERIOD: .*at most 3 days/,
    );
    expect(loadConfig({}).EVENT_GRACE_PERIOD).toBe('1 hour');
    expect(loadConfig({ REAUTHORIZE_AFTER: '365 days' }).REAUTHORIZE_AFTER).toBe('365 days');
    expect(() => loadConfig({ PAYMENTS_TIMEOUT_MS: '1e20' })).toThrow(/PAYMENTS_TIMEOUT_MS: .*300000/);
    expect(() => loadConfig({ SANDBOX_AUTHORIZATION_VALIDITY_DAYS: '1e20' })).toThrow(
      /SANDBOX_AUTHORIZATION_VALIDITY_DAYS: .*365/,
    );
  });

  it('stops on a bad value with a message naming the variable and the expected form', () => {
    expect(() => loadConfig({ TEMPORAL_ADDRESS: 'localhost' })).toThrow(ConfigError);
    expect(() => loadConfig({ TEMPORAL_ADDRESS: 'localhost' })).toThrow(/TEMPORAL_ADDRESS: .*host:port/);
    expect(() => loadConfig({ API_PORT: 'eighty' })).toThrow(/API_PORT/);
    expect(() => loadConfig({ REAUTHORIZE_AFTER: 'soon' })).toThrow(
      /REAUTHORIZE_AFTER: a positive duration such as/,
    );
    expect(() => loadConfig({ REAUTHORIZE_AFTER: '0s' })).toThrow(/REAUTHORIZE_AFTER/);
    expect(() => loadConfig({ LATE_EVENT_WINDOW: '-1s' })).toThrow(/LATE_EVENT_WINDOW: a duration such as/);
    expect(() => loadConfig({ PAYPAL_DIALECT: 'stripe' })).toThrow(/PAYPAL_DIALECT: .*"spec"\|"paypal"/);
  });

  it('refuses production without the variables whose defaults are development values, naming each', () => {
    expect(loadConfig(production).API_KEYS).toEqual([PROD_KEY]);
    for (const name of [
      'API_KEYS',
      'PAYPAL_BASE_URL',
      'PAYPAL_CLIENT_SECRET',
      'WEBHOOK_CERT_HOSTS',
      'PAYLOAD_CODEC_KEYS',
    ]) {
      const env: Record<string, string> = { ...production };
      delete env[name];
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(new RegExp(`${name}: required when NODE_ENV=production`));
      // Setting it to an empty value is not setting it.
      expect(() => loadConfig({ ...env, [name]: '' })).toThrow(new RegExp(`${name}: required`));
    }
    const withToken: Record<string, string> = { ...production, PAYPAL_ACCESS_TOKEN: 'token' };
    delete withToken.PAYPAL_CLIENT_SECRET;
    expect(loadConfig(withToken).PAYPAL_ACCESS_TOKEN).toBe('token');
  });

  it('listens on loopback in development and on every interface in production, unless API_HOST is set', () => {
    expect(apiHost(loadConfig({}))).toBe('127.0.0.1');
    expect(apiHost(loadConfig(production))).toBe('0.0.0.0');
    expect(apiHost(loadConfig({ API_HOST: '0.0.0.0' }))).toBe('0.0.0.0');
  });
});
