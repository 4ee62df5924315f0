import { apiKeyHash, parseApiCallers } from '../../src/api-callers';
import { callerLookup } from '../../src/auth/callers';
import { apiCallers, ConfigError, loadConfig } from '../../src/config';

const orderKey = 'orders-key-0123456789abcdef0123456789abcdef';
const orderNextKey = 'orders-next-key-0123456789abcdef0123456789ab';
const opsKey = 'ops-key-0123456789abcdef0123456789abcdef0123';
const API_CALLERS =
  `orders:lifecycles:write+lifecycles:read:${apiKeyHash(orderKey)},${apiKeyHash(orderNextKey).toUpperCase()};` +
  ` ops:codec:${apiKeyHash(opsKey)}`;

/** Everything production must set itself, with a real provider. */
const production = {
  NODE_ENV: 'production',
  API_CALLERS,
  PAYPAL_BASE_URL: 'https://api-m.paypal.com',
  PAYPAL_CLIENT_ID: 'prod-client',
  PAYPAL_CLIENT_SECRET: 'prod-secret',
  WEBHOOK_CERT_HOSTS: 'api.paypal.com',
  PAYLOAD_CODEC_KEYS: `prod:${Buffer.alloc(32, 7).toString('base64')}`,
};

describe('API callers', () => {
  it('development has one caller, dev, with every scope and the key dev-api-key', () => {
    const [dev, ...others] = apiCallers(loadConfig({}));
    expect(others).toEqual([]);
    expect(dev).toEqual({
      id: 'dev',
      scopes: ['lifecycles:read', 'lifecycles:write', 'codec', 'admin'],
      keyHashes: [apiKeyHash('dev-api-key')],
    });
    expect(callerLookup([dev!])('Bearer dev-api-key')?.id).toBe('dev');
  });

  it('reads API_CALLERS: an id, its scopes and one or two key hashes per caller', () => {
    const callers = apiCallers(loadConfig({ API_CALLERS }));
    expect(callers.map(({ id, scopes }) => ({ id, scopes }))).toEqual([
      { id: 'orders', scopes: ['lifecycles:write', 'lifecycles:read'] },
      { id: 'ops', scopes: ['codec'] },
    ]);
    const find = callerLookup(callers);
    expect(find(`Bearer ${orderKey}`)?.id).toBe('orders');
    expect(find(`Bearer ${orderNextKey}`)?.id).toBe('orders');
    expect(find(`Bearer ${opsKey}`)?.id).toBe('ops');
    expect(find(`Bearer ${apiKeyHash(opsKey)}`)).toBeUndefined();
    expect(find('Bearer dev-api-key')).toBeUndefined();
    expect(find(undefined)).toBeUndefined();
  });

  it('refuses a malformed API_CALLERS, naming the variable and what is wrong', () => {
    const hash = apiKeyHash(orderKey);
    const refusals: Array<[string, RegExp]> = [
      [`orders:${hash}`, /not id:scope\+scope:sha256/],
      [`orders:lifecycles:steal:${hash}`, /unknown scope "lifecycles:steal"/],
      [`orders:codec:abc`, /SHA-256 as 64 hex digits/],
      [`orders:codec:${hash},${hash.replace(/^./, '0')},${hash.replace(/^./, '1')}`, /one or two key hashes/],
      [`Orders:codec:${hash}`, /caller id "Orders"/],
      [`a:codec:${hash};a:admin:${apiKeyHash(opsKey)}`, /caller a is listed twice/],
      [`a:codec:${hash};b:admin:${hash}`, /a key hash is listed twice/],
    ];
    for (const [value, message] of refusals) {
      expect(() => loadConfig({ API_CALLERS: value })).toThrow(ConfigError);
      expect(() => loadConfig({ API_CALLERS: value })).toThrow(
        new RegExp(`API_CALLERS: .*${message.source}`),
      );
    }
    expect(() => parseApiCallers(' ; ')).toThrow(/at least one caller/);
  });

  it('refuses API_KEYS next to API_CALLERS: which caller its keys are would be a guess', () => {
    expect(() => loadConfig({ API_CALLERS, API_KEYS: orderKey })).toThrow(/API_KEYS: not with API_CALLERS/);
  });
});

describe('production refuses weak values, naming each', () => {
  it('starts with callers by hash and a provider over https', () => {
    expect(loadConfig(production).API_CALLERS).toHaveLength(2);
    expect(loadConfig({ ...production, API_CALLERS: '', API_KEYS: orderKey }).API_KEYS).toEqual([orderKey]);
  });

  const refusals: Array<[string, Record<string, string>, RegExp]> = [
    [
      'development key',
      { API_CALLERS: '', API_KEYS: 'dev-api-key' },
      /API_KEYS: dev-api-key is development's/,
    ],
    [
      'short key',
      { API_CALLERS: '', API_KEYS: `${orderKey},short` },
      /API_KEYS: key 2 has 5 characters; at least 32/,
    ],
    [
      "development key's hash",
      { API_CALLERS: `dev:admin:${apiKeyHash('dev-api-key')}` },
      /API_CALLERS: caller dev has the hash of dev-api-key/,
    ],
    ['short characters key', { CHARACTERS_API_KEYS: 'characters-key' }, /CHARACTERS_API_KEYS: key 1 has 14/],
    ["sandbox's secret", { PAYPAL_CLIENT_SECRET: 'sandbox-secret' }, /PAYPAL_CLIENT_SECRET: the sandbox's/],
    ["sandbox's client id", { PAYPAL_CLIENT_ID: '' }, /PAYPAL_CLIENT_ID: the sandbox's client id/],
    ['http provider', { PAYPAL_BASE_URL: 'http://api-m.paypal.com' }, /PAYPAL_BASE_URL: https only/],
    ['http certificate host', { WEBHOOK_CERT_HOSTS: 'http://api.paypal.com' }, /WEBHOOK_CERT_HOSTS: http:/],
    [
      'localhost certificate host',
      { WEBHOOK_CERT_HOSTS: 'api.paypal.com,localhost' },
      /WEBHOOK_CERT_HOSTS: localhost/,
    ],
    [
      'loopback certificate host',
      { WEBHOOK_CERT_HOSTS: 'https://127.0.0.1:8443' },
      /WEBHOOK_CERT_HOSTS: https:\/\/127/,
    ],
  ];
  it.each(refusals)('refuses the %s', (_what, change, message) => {
    const env = { ...production, ...change };
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('never shows a refused key in its message', () => {
    expect(() => loadConfig({ ...production, API_CALLERS: '', API_KEYS: 'short-secret' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('short-secret') }),
    );
  });

  it('takes a test provider only with ALLOW_INSECURE_PROVIDER_FOR_TESTS=1, and never weak keys', () => {
    const sandbox = {
      ...production,
      PAYPAL_BASE_URL: 'http://sandbox:8090',
      PAYPAL_CLIENT_ID: '',
      PAYPAL_CLIENT_SECRET: 'sandbox-secret',
      WEBHOOK_CERT_HOSTS: 'http://sandbox:8090,localhost',
    };
    expect(() => loadConfig(sandbox)).toThrow(/PAYPAL_BASE_URL/);
    const allowed = { ...sandbox, ALLOW_INSECURE_PROVIDER_FOR_TESTS: '1' };
    expect(loadConfig(allowed).PAYPAL_BASE_URL).toBe('http://sandbox:8090');
    expect(() => loadConfig({ ...allowed, API_CALLERS: '', API_KEYS: 'dev-api-key' })).toThrow(/API_KEYS/);
    expect(() => loadConfig({ ...sandbox, ALLOW_INSECURE_PROVIDER_FOR_TESTS: 'yes' })).toThrow(
      /ALLOW_INSECURE_PROVIDER_FOR_TESTS/,
    );
  });

  it('development keeps its defaults: the dev key, the sandbox and localhost certificates', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).API_KEYS).toEqual(['dev-api-key']);
  });
});
