import { apiKeyHash } from '../api-callers';
import type { ProviderName } from '../provider-names';
import { DEV_API_KEY } from './api';
import { certificateOriginUrl } from './forms';
import { SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET } from './paypal';
import type { Config } from './programs';
import { SANDBOX_STRIPE_API_KEY, SANDBOX_STRIPE_WEBHOOK_SECRET } from './stripe';

// Production fails closed: what a process reads must be set, and set to a value that is not the local stack's.

/** Stripe issues signing secrets of 32 characters after `whsec_`; production refuses fewer than this. */
export const MIN_STRIPE_WEBHOOK_SECRET_CHARS = 24;

/** Keys given in the clear are random strings of at least this many characters in production. */
export const MIN_CLEAR_KEY_LENGTH = 32;

/**
 * What production must set itself: the schemas' defaults for these are the local stack's (the well-known dev
 * API key, the sandbox's secret and URL, localhost certificates), so production refuses to start without them.
 */
const requiredInProduction = {
  API_KEYS: 'API_CALLERS (id:scope+scope:sha256 of the key), or API_KEYS (keys of at least 32 characters)',
  PAYPAL_BASE_URL: "the payments provider's base URL",
  PAYPAL_CLIENT_SECRET: "the provider's OAuth client secret (or PAYPAL_ACCESS_TOKEN)",
  WEBHOOK_CERT_HOSTS: "the hosts the provider's signing certificates may come from",
  PAYLOAD_CODEC_KEYS: 'keyId:base64-32-byte-key, comma-separated',
} as const;

/** The production settings a process reads; each process requires only its own (docker-compose.yml hands it only those). */
export type ProductionSetting = keyof typeof requiredInProduction;
export const everyProductionSetting = Object.keys(requiredInProduction) as ProductionSetting[];
export const productionSettingsOf = {
  api: ['API_KEYS', 'PAYLOAD_CODEC_KEYS', 'WEBHOOK_CERT_HOSTS'],
  worker: ['PAYPAL_BASE_URL', 'PAYPAL_CLIENT_SECRET', 'WEBHOOK_CERT_HOSTS', 'PAYLOAD_CODEC_KEYS'],
  sandbox: ['PAYPAL_CLIENT_SECRET'],
  characters: [],
  webhookSubscription: ['PAYLOAD_CODEC_KEYS'],
} as const satisfies Record<string, readonly ProductionSetting[]>;

/** PayPal's own settings: a process is held to them only when PAYMENTS_PROVIDER names PayPal. */
const providerOwnSettings: Record<string, ProviderName> = {
  PAYPAL_BASE_URL: 'paypal',
  PAYPAL_CLIENT_SECRET: 'paypal',
};

/** What a program parsed: the refusals look only at the variables it reads. */
type Settings = Partial<Config>;
type Environment = Record<string, string | undefined>;

/**
 * The refusals of production for one program's settings (`uses`: the production settings it requires); each
 * names its variable (`named`: as the operator set it), none shows a secret.
 */
export function productionRefusals(
  config: Settings,
  env: Environment,
  uses: readonly ProductionSetting[],
  named: (variable: string) => string,
): string[] {
  return [
    ...missingInProduction(env, uses, config.PAYMENTS_PROVIDER ?? []),
    ...weakInProduction(config, env, uses, named),
  ];
}

function missingInProduction(
  env: Environment,
  uses: readonly string[],
  providers: readonly ProviderName[],
): string[] {
  return Object.entries(requiredInProduction)
    .filter(([name]) => uses.includes(name) && env[name] === undefined)
    .filter(
      ([name]) => providerOwnSettings[name] === undefined || providers.includes(providerOwnSettings[name]),
    )
    .filter(([name]) => !(name === 'API_KEYS' && env.API_CALLERS !== undefined))
    .filter(([name]) => !(name === 'PAYPAL_CLIENT_SECRET' && env.PAYPAL_ACCESS_TOKEN !== undefined))
    .map(([name, form]) => `  ${name}: required when NODE_ENV=production (${form})`);
}

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\./.test(hostname);
}

/** Keys in the clear that production refuses: development's, or shorter than MIN_CLEAR_KEY_LENGTH. */
function weakClearKeys(name: string, keys: readonly string[] | undefined): string[] {
  return (keys ?? []).flatMap((key, index) => {
    if (key === DEV_API_KEY) return [`  ${name}: ${DEV_API_KEY} is development's well-known key`];
    if (key.length < MIN_CLEAR_KEY_LENGTH)
      return [
        `  ${name}: key ${index + 1} has ${key.length} characters; at least ${MIN_CLEAR_KEY_LENGTH} (openssl rand -hex 32)`,
      ];
    return [];
  });
}

/**
 * Values production refuses even when set: development's and the sandbox's, short keys, and (unless
 * ALLOW_INSECURE_PROVIDER_FOR_TESTS=1) a provider or certificate host reached over plain http or on this
 * machine.
 */
function weakInProduction(
  config: Settings,
  env: Environment,
  uses: readonly ProductionSetting[],
  named: (variable: string) => string,
): string[] {
  const providers = config.PAYMENTS_PROVIDER ?? [];
  const problems = [
    ...weakClearKeys('API_KEYS', env.API_KEYS === undefined ? undefined : config.API_KEYS),
    ...weakClearKeys('CHARACTERS_API_KEYS', config.CHARACTERS_API_KEYS),
  ];
  // The worker checks Stripe's signatures in the run, the API at its intake (POST /webhooks/stripe).
  const checksStripeSignatures = uses.includes('PAYPAL_CLIENT_SECRET') || uses.includes('API_KEYS');
  if (providers.includes('stripe') && checksStripeSignatures)
    problems.push(...weakStripeWebhookSecrets(config, env));
  const devHash = apiKeyHash(DEV_API_KEY);
  for (const caller of config.API_CALLERS ?? []) {
    if (caller.keyHashes.includes(devHash))
      problems.push(`  API_CALLERS: caller ${caller.id} has the hash of ${DEV_API_KEY}, development's key`);
  }
  if (config.CODEC_OIDC_ISSUER && new URL(config.CODEC_OIDC_ISSUER).protocol !== 'https:')
    problems.push('  CODEC_OIDC_ISSUER: https only (the keys that admit operators come from it)');
  if (config.ALLOW_INSECURE_PROVIDER_FOR_TESTS === '1') return problems;
  const test = 'unless ALLOW_INSECURE_PROVIDER_FOR_TESTS=1';
  // A process is held only to the provider settings it reads: the others keep their local defaults.
  const usesCredentials =
    providers.includes('paypal') && uses.includes('PAYPAL_CLIENT_SECRET') && !config.PAYPAL_ACCESS_TOKEN;
  if (usesCredentials && config.PAYPAL_CLIENT_SECRET === SANDBOX_CLIENT_SECRET)
    problems.push(`  ${named('PAYPAL_CLIENT_SECRET')}: the sandbox's secret (${test})`);
  if (usesCredentials && config.PAYPAL_CLIENT_ID === SANDBOX_CLIENT_ID)
    problems.push(`  ${named('PAYPAL_CLIENT_ID')}: the sandbox's client id; set the provider's (${test})`);
  if (config.PAYPAL_BASE_URL && new URL(config.PAYPAL_BASE_URL).protocol !== 'https:')
    problems.push(`  ${named('PAYPAL_BASE_URL')}: https only (${test})`);
  // The processes that call the provider (they read its credentials) call Stripe too when it is configured.
  if (providers.includes('stripe') && uses.includes('PAYPAL_CLIENT_SECRET'))
    problems.push(...weakStripeSettings(config, env, test));
  const certificateHosts = uses.includes('WEBHOOK_CERT_HOSTS') ? (config.WEBHOOK_CERT_HOSTS ?? []) : [];
  for (const entry of certificateHosts) {
    const url = certificateOriginUrl(entry);
    if (url.protocol !== 'https:' || isLoopbackHost(url.hostname))
      problems.push(`  WEBHOOK_CERT_HOSTS: ${entry} is not an https host of the provider (${test})`);
  }
  return problems;
}

/**
 * Stripe's settings production refuses when PAYMENTS_PROVIDER names Stripe: a key left unset (the sandbox's),
 * a key that is not live, plain http.
 */
function weakStripeSettings(config: Settings, env: Environment, test: string): string[] {
  const problems: string[] = [];
  if (env.STRIPE_API_KEY === undefined || config.STRIPE_API_KEY === SANDBOX_STRIPE_API_KEY)
    problems.push(
      `  STRIPE_API_KEY: required when PAYMENTS_PROVIDER names stripe (the account's sk_live_… key)`,
    );
  else if (config.STRIPE_API_KEY !== undefined && !config.STRIPE_API_KEY.startsWith('sk_live_'))
    problems.push(`  STRIPE_API_KEY: not a live key, sk_live_… (${test})`);
  if (config.STRIPE_BASE_URL && new URL(config.STRIPE_BASE_URL).protocol !== 'https:')
    problems.push(`  STRIPE_BASE_URL: https only (${test})`);
  return problems;
}

/**
 * STRIPE_WEBHOOK_SECRETS in production: set, none the sandbox's, each as long as Stripe issues them (a shorter
 * one is a placeholder, never a live endpoint's). Only the count and lengths are shown, never a secret.
 */
function weakStripeWebhookSecrets(config: Settings, env: Environment): string[] {
  const secrets = config.STRIPE_WEBHOOK_SECRETS ?? [];
  if (env.STRIPE_WEBHOOK_SECRETS === undefined || secrets.includes(SANDBOX_STRIPE_WEBHOOK_SECRET))
    return [
      `  STRIPE_WEBHOOK_SECRETS: required when PAYMENTS_PROVIDER names stripe (the endpoint's whsec_… secrets, not the sandbox's)`,
    ];
  const short = secrets.filter((secret) => secret.length - 'whsec_'.length < MIN_STRIPE_WEBHOOK_SECRET_CHARS);
  if (short.length === 0) return [];
  return [
    `  STRIPE_WEBHOOK_SECRETS: ${short.length} of ${secrets.length} secrets are shorter than Stripe issues ` +
      `(whsec_ and at least ${MIN_STRIPE_WEBHOOK_SECRET_CHARS} more characters)`,
  ];
}
