import { apiKeyHash } from '../../src/api-callers';
import { codecOperatorTokens, ConfigError, loadConfig } from '../../src/config';

const production = {
  NODE_ENV: 'production',
  API_CALLERS: `ops:codec:${apiKeyHash('ops-key-0123456789abcdef0123456789abcdef0123')}`,
  PAYPAL_BASE_URL: 'https://api-m.paypal.com',
  PAYPAL_CLIENT_ID: 'prod-client',
  PAYPAL_CLIENT_SECRET: 'prod-secret',
  WEBHOOK_CERT_HOSTS: 'api.paypal.com',
  PAYLOAD_CODEC_KEYS: `prod:${Buffer.alloc(32, 7).toString('base64')}`,
};

describe("the codec server's operator tokens (CODEC_OIDC_*)", () => {
  it('are off unless CODEC_OIDC_ISSUER names an issuer', () => {
    expect(codecOperatorTokens(loadConfig({}))).toBeUndefined();
  });

  it('take the issuer, the audience and the scope (default codec)', () => {
    const issuer = 'https://login.example.com/realms/payments';
    expect(codecOperatorTokens(loadConfig({ ...production, CODEC_OIDC_ISSUER: issuer }))).toEqual({
      issuer,
      audience: undefined,
      scope: 'codec',
    });
    const config = loadConfig({
      CODEC_OIDC_ISSUER: 'http://127.0.0.1:4444',
      CODEC_OIDC_AUDIENCE: 'urn:payments:codec',
      CODEC_OIDC_SCOPE: 'payments:decode',
    });
    expect(codecOperatorTokens(config)).toEqual({
      issuer: 'http://127.0.0.1:4444',
      audience: 'urn:payments:codec',
      scope: 'payments:decode',
    });
  });

  it('refuse in production an issuer over http, also with ALLOW_INSECURE_PROVIDER_FOR_TESTS', () => {
    for (const env of [
      { ...production, CODEC_OIDC_ISSUER: 'http://login.example.com' },
      {
        ...production,
        CODEC_OIDC_ISSUER: 'http://login.example.com',
        ALLOW_INSECURE_PROVIDER_FOR_TESTS: '1',
      },
    ]) {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(/CODEC_OIDC_ISSUER: https only/);
    }
  });

  it('refuse a scope with spaces and an issuer that is not a URL', () => {
    expect(() => loadConfig({ CODEC_OIDC_SCOPE: 'codec admin' })).toThrow(/CODEC_OIDC_SCOPE: one scope/);
    expect(() => loadConfig({ CODEC_OIDC_ISSUER: 'login' })).toThrow(/CODEC_OIDC_ISSUER/);
  });
});
