import { isIP } from 'node:net';
import { z } from 'zod';
import { apiCallersSchema, apiKeyHash, clearKeyCaller, type ApiCaller } from './api-callers';
import { codecKeysSchema } from './codec/key-schema';
import { nexusCallersSchema } from './nexus-callers';
import { endpointKeysSchema } from './codec/endpoint-keys';
import type { OperatorTokenSettings } from './codec/operator-tokens';
import { durationDefault, durationSchema } from './duration';
import { DEFAULT_PROVIDER, providerNames, type ProviderName } from './provider-names';
import { underCurrentNames, warnOnce, type RenamedEnvironment } from './config/renamed-variables';

/** The API key development runs with: well known, so production refuses it. */
export const DEV_API_KEY = 'dev-api-key';

/** The Stripe sandbox's test key and signing secret: the local stack's defaults, never production's. */
export const SANDBOX_STRIPE_API_KEY = 'sk_test_sandbox';
export const SANDBOX_STRIPE_WEBHOOK_SECRET = 'whsec_sandbox';
/** Stripe issues signing secrets of 32 characters after `whsec_`; production refuses fewer than this. */
export const MIN_STRIPE_WEBHOOK_SECRET_CHARS = 24;

const port = z.coerce.number().int().min(1).max(65535);
const optionalUrl = z.url().optional();
const commaList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().min(1)));

/** A TRUST_PROXY entry: an exact address or a CIDR narrower than "everyone" (that would be trustProxy: true). */
function isProxyAddress(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
  return bits >= 1 && bits <= (family === 4 ? 32 : 128);
}

/** A WEBHOOK_CERT_HOSTS entry as a URL: `host` means https on its default port. Throws when it is no URL. */
export function certificateOriginUrl(entry: string): URL {
  return new URL(entry.includes('://') ? entry : `https://${entry}`);
}

function isCertificateOrigin(entry: string): boolean {
  try {
    const url = certificateOriginUrl(entry);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.pathname === '/' && !url.search;
  } catch {
    return false;
  }
}

/**
 * Every environment variable the service reads, with the defaults of the local stack.
 * `npm start` and the tests run on these defaults; docker-compose.yml overrides them.
 */
export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

  // Temporal: the connection is Temporal's environment configuration (src/temporal-env.ts), which reads these
  // and the profile TEMPORAL_PROFILE of TEMPORAL_CONFIG_FILE; they are listed here to be checked and known.
  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[^:\s]+:\d+$/, 'host:port')
    .optional(),
  /** Unset = the profile's namespace, else `default`. */
  TEMPORAL_NAMESPACE: z.string().min(1).optional(),
  TEMPORAL_CONFIG_FILE: z.string().min(1).optional(),
  TEMPORAL_PROFILE: z.string().min(1).optional(),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  TEMPORAL_TLS: z.enum(['true', 'false', '1', '0']).optional(),
  TEMPORAL_TLS_CLIENT_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_KEY_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('payment-authorizations'),
  TEMPORAL_CLI_PATH: z.string().min(1).optional(),
  TEMPORAL_DEV_PORT: port.default(7233),
  TEMPORAL_UI_PORT: port.default(8233),
  TEMPORAL_DB_FILE: z.string().min(1).default('.data/temporal.sqlite'),
  WORKER_METRICS_PORT: port.default(9464),
  /**
   * Workflows kept in the worker's memory (about 0.5 MB each); the rest replay from history when their next
   * task comes. It bounds the worker's memory whatever the number open (docs/performance.md).
   */
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).default(100),
  /** A prebuilt workflow bundle (`npm run workflow:bundle`); unset = the worker bundles at start. */
  WORKFLOW_BUNDLE_PATH: z.string().min(1).optional(),
  /**
   * The worker runs as a version of a Worker Deployment (docs/deploying.md): off by default, as the test suites
   * run unversioned workers beside the process on one task queue.
   */
  WORKER_VERSIONING: z.enum(['true', 'false', '1', '0']).default('0'),
  /** The Worker Deployment this worker is a version of. */
  TEMPORAL_DEPLOYMENT_NAME: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,255}$/, 'letters, digits, _ and - only')
    .default('payments-worker'),
  /** The version's build id; unset = the workflow bundle's content hash, else the git commit. */
  TEMPORAL_BUILD_ID: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,255}$/, 'letters, digits, _ and - only')
    .optional(),

  // Payments provider (interfaces A and B); no base URL means the embedded sandbox
  PAYPAL_BASE_URL: optionalUrl,
  PAYPAL_DIALECT: z.enum(['spec', 'paypal']).default('spec'),
  PAYPAL_CLIENT_ID: z.string().min(1).default('sandbox-client'),
  /** The sandbox's secret by default; required in production (unless PAYPAL_ACCESS_TOKEN is set). */
  PAYPAL_CLIENT_SECRET: z.string().min(1).default('sandbox-secret'),
  PAYPAL_ACCESS_TOKEN: z.string().min(1).optional(),
  PAYMENTS_TIMEOUT_MS: z.coerce.number().int().positive().max(300_000).default(10_000),
  /** The providers lifecycles run on: `paypal`, `stripe` or `paypal,stripe` (docs/providers.md). */
  PAYMENTS_PROVIDER: commaList.pipe(z.array(z.enum(providerNames)).min(1)).default([DEFAULT_PROVIDER]),
  /** Stripe's secret key (sk_live_… in production); the sandbox's test key by default. */
  STRIPE_API_KEY: z.string().min(1).default(SANDBOX_STRIPE_API_KEY),
  /** Unset: api.stripe.com, or the embedded sandbox's Stripe mode under `npm start`. */
  STRIPE_BASE_URL: optionalUrl,
  /** The webhook endpoint's signing secrets (whsec_…), old and new during a rotation. */
  STRIPE_WEBHOOK_SECRETS: commaList
    .pipe(
      z
        .array(z.string().regex(/^whsec_./, 'an endpoint signing secret, whsec_…'))
        .min(1, 'at least one endpoint signing secret, whsec_…'),
    )
    .default([SANDBOX_STRIPE_WEBHOOK_SECRET]),
  /** `true` when the account's PaymentIntents request multicapture: up to 50 captures each. */
  STRIPE_MULTICAPTURE: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((value) => value === 'true' || value === '1'),
  SANDBOX_PORT: port.default(8090),
  /** The contract the sandbox answers by; unset: PAYPAL_DIALECT's (`npm start` runs a `stripe` one for Stripe). */
  SANDBOX_MODE: z.enum(['spec', 'paypal', 'stripe']).optional(),
  /** The embedded sandbox's Stripe mode under `npm start`, when Stripe is configured without STRIPE_BASE_URL. */
  STRIPE_SANDBOX_PORT: port.default(8091),
  /** The sandbox's listen address: loopback by default; `0.0.0.0` in a container so that others reach it. */
  SANDBOX_HOST: z.string().min(1).default('127.0.0.1'),
  /** The URL others reach the sandbox at (its links and cert_url), when not the one it listens on. */
  SANDBOX_PUBLIC_URL: optionalUrl,
  SANDBOX_AUTHORIZATION_VALIDITY_DAYS: z.coerce.number().positive().max(365).default(29),

  // HTTP API for order systems and webhook deliveries
  API_PORT: port.default(8080),
  /** The API's listen address; unset = loopback in development, every interface in production. */
  API_HOST: z.string().min(1).optional(),
  /**
   * Keys in the clear for one caller, `dev`, with every scope: development's `dev-api-key` by default. Not
   * with API_CALLERS; in production each at least 32 characters.
   */
  API_KEYS: commaList.default([DEV_API_KEY]),
  /**
   * The callers of the API, each with its scopes and the SHA-256 of one or two keys:
   * `id:scope+scope:sha256[,sha256]`, `;` between callers (docs/configuration.md).
   */
  API_CALLERS: apiCallersSchema.optional(),
  WEBHOOK_BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1_048_576),
  WEBHOOK_ID: z.string().min(1).optional(),
  WEBHOOK_LISTENER_URL: optionalUrl,
  WEBHOOK_VERIFY_MODE: z.enum(['api', 'local']).default('api'),
  /**
   * Where a cert_url may point in local mode: `host` (https on port 443), or an origin such as
   * `http://localhost:8090` (exactly that scheme and port: plain http only for a local sandbox).
   */
  WEBHOOK_CERT_HOSTS: commaList
    .refine(
      (entries) => entries.every(isCertificateOrigin),
      'host names or origins such as http://localhost:8090',
    )
    .default(['localhost', '127.0.0.1', 'http://localhost:8090', 'http://127.0.0.1:8090']),
  /** A delivery whose signed transmission time is further than this from now is refused before any run. */
  WEBHOOK_TRANSMISSION_TOLERANCE_MS: z.coerce.number().int().positive().default(600_000),
  /** Requests per client address and window, on routes without a known API key; then 429. */
  API_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(1_000),
  API_RATE_LIMIT_WINDOW_MS: z.coerce.number().int().positive().default(60_000),
  // The doors (docs/security.md): whose address counts, the budgets, where metrics and docs are served.
  /** The load balancers in front of the API, as addresses or CIDRs: the client is the first untrusted hop. */
  TRUST_PROXY: commaList
    .refine(
      (entries) => entries.every(isProxyAddress),
      'addresses or CIDRs such as 10.0.0.0/8 (never "true")',
    )
    .default([]),
  /** Requests per API key and window on the authenticated routes (the per-address budget does not apply). */
  API_CALLER_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(6_000),
  /** Webhook deliveries per window, all senders together, on the intake's own budget. */
  WEBHOOK_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(600),
  /** GET /metrics of the API, on its own listener (keep it internal), never on API_PORT. */
  API_METRICS_PORT: port.default(9470),
  API_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** /docs and /openapi.json: served by default outside production, in production only when true. */
  API_DOCS: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional(),
  /** A request (headers and body) must arrive within this; its headers within API_HEADERS_TIMEOUT_MS. */
  API_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  API_HEADERS_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /**
   * How long a lifecycle command (start, capture, void, reauthorize, refund) waits for its answer; then 504 with
   * Retry-After while the command goes on. Below the 30 s most HTTP clients give up at.
   */
  API_ANSWER_WAIT_MS: z.coerce.number().int().positive().default(25_000),

  // Payload encryption (src/codec) and the codec server on the API
  /** `keyId:base64-32-byte-key`, comma-separated: the first encrypts, all decrypt. Required in production. */
  PAYLOAD_CODEC_KEYS: codecKeysSchema.optional(),
  /** Browser origins allowed to call /codec/* (CORS); unset = the local Web UI on TEMPORAL_UI_PORT. */
  CODEC_CORS_ORIGINS: z
    .string()
    .transform((value) => value.split(',').map((item) => item.trim().replace(/\/+$/, '')))
    .pipe(z.array(z.url({ message: 'comma-separated origins such as http://localhost:8233' })))
    .optional(),
  /** The operators' OpenID provider (issuer identifier): the codec server accepts its JWTs (docs/security.md). */
  CODEC_OIDC_ISSUER: z.url({ message: 'the issuer identifier, e.g. https://login.example.com' }).optional(),
  /** The `aud` an operator's token must name; unset = any. */
  CODEC_OIDC_AUDIENCE: z.string().min(1).optional(),
  /** The scope in an operator's token that grants decoding. */
  CODEC_OIDC_SCOPE: z.string().regex(/^\S+$/, 'one scope, no spaces').default('codec'),

  // Nexus (src/nexus/, docs/nexus.md)
  /** Caller namespaces and their operations, e.g. `orders:startLifecycle+capture+state`; production: none unless set. */
  NEXUS_CALLERS: nexusCallersSchema.optional(),
  /** `namespace=keyId:base64`: each caller's key for what crosses the endpoint; never PAYLOAD_CODEC_KEYS. */
  NEXUS_ENDPOINT_KEYS: endpointKeysSchema.optional(),
  /** Open awaitOutcome waits per caller namespace; beyond it a new one is refused (RESOURCE_EXHAUSTED). */
  NEXUS_OUTCOME_WAITS_PER_CALLER: z.coerce.number().int().positive().default(1_000),

  // Lifecycle defaults
  REAUTHORIZE_AFTER: durationSchema('reauthorizeAfter').default(durationDefault('reauthorizeAfter')),
  EXPIRY_POLICY: z.enum(['void', 'expire']).default('void'),
  LATE_EVENT_WINDOW: durationSchema('lateEventWindow').default(durationDefault('lateEventWindow')),
  /** How long an answer is remembered under its Idempotency-Key; a retry after it is a new request. */
  IDEMPOTENCY_KEY_RETENTION: durationSchema('idempotencyKeyRetention').default(
    durationDefault('idempotencyKeyRetention'),
  ),
  /** How long a timer's provider call (reauthorize, void before expiry) keeps retrying before it fails. */
  TIMER_CALL_TIMEOUT: durationSchema('timerCallTimeout').default(durationDefault('timerCallTimeout')),

  // Characters service
  CHARACTERS_PORT: port.default(8070),
  CHARACTERS_URL: optionalUrl,
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'postgres://user@host:port/database')
    .optional(),
  CHARACTERS_DATA_DIR: z.string().min(1).default('.data/characters'),
  /** Keys for upsertCharacter (`Authorization: Bearer`): the service accepts each, the worker sends the first. Required in production. */
  CHARACTERS_API_KEYS: commaList.optional(),

  /**
   * `1` lets production use a test provider: a plain-http PAYPAL_BASE_URL, http or loopback
   * WEBHOOK_CERT_HOSTS and the sandbox's client id and secret (docker-compose's sandbox, end-to-end tests).
   */
  ALLOW_INSECURE_PROVIDER_FOR_TESTS: z.enum(['0', '1']).default('0'),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * What production must set itself: the schema's defaults for these are the local stack's (the well-known dev
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
const everyProductionSetting = Object.keys(requiredInProduction) as ProductionSetting[];
export const productionSettingsOf = {
  api: ['API_KEYS', 'PAYLOAD_CODEC_KEYS', 'WEBHOOK_CERT_HOSTS'],
  worker: ['PAYPAL_BASE_URL', 'PAYPAL_CLIENT_SECRET', 'WEBHOOK_CERT_HOSTS', 'PAYLOAD_CODEC_KEYS'],
  sandbox: ['PAYPAL_CLIENT_SECRET'],
  characters: [],
  webhookSubscription: ['PAYLOAD_CODEC_KEYS'],
} as const satisfies Record<string, readonly ProductionSetting[]>;

/** PayPal's own settings: a process is held to them only when PAYMENTS_PROVIDER names PayPal. */
const providerSettings: Record<string, ProviderName> = {
  PAYPAL_BASE_URL: 'paypal',
  PAYPAL_CLIENT_SECRET: 'paypal',
};

function missingInProduction(
  env: Record<string, string | undefined>,
  uses: readonly string[],
  providers: readonly ProviderName[],
): string[] {
  return Object.entries(requiredInProduction)
    .filter(([name]) => uses.includes(name) && env[name] === undefined)
    .filter(([name]) => providerSettings[name] === undefined || providers.includes(providerSettings[name]))
    .filter(([name]) => !(name === 'API_KEYS' && env.API_CALLERS !== undefined))
    .filter(([name]) => !(name === 'PAYPAL_CLIENT_SECRET' && env.PAYPAL_ACCESS_TOKEN !== undefined))
    .map(([name, form]) => `  ${name}: required when NODE_ENV=production (${form})`);
}

/** Keys given in the clear are random strings of at least this many characters in production. */
export const MIN_CLEAR_KEY_LENGTH = 32;

/** Values the repository ships as defaults (the sandbox's credentials, development's key): never production's. */
const SANDBOX_CLIENT_ID = 'sandbox-client';
const SANDBOX_CLIENT_SECRET = 'sandbox-secret';

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
 * machine. Each names its variable; none shows a secret.
 */
function weakInProduction(
  config: Config,
  env: Record<string, string | undefined>,
  uses: readonly ProductionSetting[],
  named: (variable: string) => string,
): string[] {
  const problems = [
    ...weakClearKeys('API_KEYS', env.API_KEYS === undefined ? undefined : config.API_KEYS),
    ...weakClearKeys('CHARACTERS_API_KEYS', config.CHARACTERS_API_KEYS),
  ];
  // The worker checks Stripe's signatures in the run, the API at its intake (POST /webhooks/stripe).
  const checksStripeSignatures = uses.includes('PAYPAL_CLIENT_SECRET') || uses.includes('API_KEYS');
  if (config.PAYMENTS_PROVIDER.includes('stripe') && checksStripeSignatures)
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
  const paypal = config.PAYMENTS_PROVIDER.includes('paypal');
  const usesCredentials = paypal && uses.includes('PAYPAL_CLIENT_SECRET') && !config.PAYPAL_ACCESS_TOKEN;
  if (usesCredentials && config.PAYPAL_CLIENT_SECRET === SANDBOX_CLIENT_SECRET)
    problems.push(`  ${named('PAYPAL_CLIENT_SECRET')}: the sandbox's secret (${test})`);
  if (usesCredentials && config.PAYPAL_CLIENT_ID === SANDBOX_CLIENT_ID)
    problems.push(`  ${named('PAYPAL_CLIENT_ID')}: the sandbox's client id; set the provider's (${test})`);
  if (config.PAYPAL_BASE_URL && new URL(config.PAYPAL_BASE_URL).protocol !== 'https:')
    problems.push(`  ${named('PAYPAL_BASE_URL')}: https only (${test})`);
  // The processes that call the provider (they read its credentials) call Stripe too when it is configured.
  if (config.PAYMENTS_PROVIDER.includes('stripe') && uses.includes('PAYPAL_CLIENT_SECRET'))
    problems.push(...weakStripeSettings(config, env, test));
  const certificateHosts = uses.includes('WEBHOOK_CERT_HOSTS') ? config.WEBHOOK_CERT_HOSTS : [];
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
function weakStripeSettings(config: Config, env: Record<string, string | undefined>, test: string): string[] {
  const problems: string[] = [];
  if (env.STRIPE_API_KEY === undefined || config.STRIPE_API_KEY === SANDBOX_STRIPE_API_KEY)
    problems.push(
      `  STRIPE_API_KEY: required when PAYMENTS_PROVIDER names stripe (the account's sk_live_… key)`,
    );
  else if (!config.STRIPE_API_KEY.startsWith('sk_live_'))
    problems.push(`  STRIPE_API_KEY: not a live key, sk_live_… (${test})`);
  if (config.STRIPE_BASE_URL && new URL(config.STRIPE_BASE_URL).protocol !== 'https:')
    problems.push(`  STRIPE_BASE_URL: https only (${test})`);
  return problems;
}

/**
 * STRIPE_WEBHOOK_SECRETS in production: set, none the sandbox's, each as long as Stripe issues them (a shorter
 * one is a placeholder, never a live endpoint's). Only the count and lengths are shown, never a secret.
 */
function weakStripeWebhookSecrets(config: Config, env: Record<string, string | undefined>): string[] {
  if (
    env.STRIPE_WEBHOOK_SECRETS === undefined ||
    config.STRIPE_WEBHOOK_SECRETS.includes(SANDBOX_STRIPE_WEBHOOK_SECRET)
  )
    return [
      `  STRIPE_WEBHOOK_SECRETS: required when PAYMENTS_PROVIDER names stripe (the endpoint's whsec_… secrets, not the sandbox's)`,
    ];
  const secrets = config.STRIPE_WEBHOOK_SECRETS;
  const short = secrets.filter((secret) => secret.length - 'whsec_'.length < MIN_STRIPE_WEBHOOK_SECRET_CHARS);
  if (short.length === 0) return [];
  return [
    `  STRIPE_WEBHOOK_SECRETS: ${short.length} of ${secrets.length} secrets are shorter than Stripe issues ` +
      `(whsec_ and at least ${MIN_STRIPE_WEBHOOK_SECRET_CHARS} more characters)`,
  ];
}

/**
 * Parses the environment once; a bad value names the variable and the form expected. In production, the
 * settings in `uses` (by default all) must be set.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  uses: readonly ProductionSetting[] = everyProductionSetting,
): Config {
  // An empty variable means "not set", as in most shells' `VAR= cmd`.
  const set = Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '',
    ),
  );
  const { env: present, readFrom, warnings } = underCurrentNames(set);
  warnOnce(warnings);
  // A problem with a value names the variable the operator set it under.
  const named = (variable: string) => readFrom[variable as keyof RenamedEnvironment['readFrom']] ?? variable;
  const parsed = configSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `  ${[named(String(issue.path[0])), ...issue.path.slice(1)].join('.')}: ${issue.message}`,
    );
    throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  }
  const problems = [
    ...(present.API_CALLERS !== undefined && present.API_KEYS !== undefined
      ? ['  API_KEYS: not with API_CALLERS (give the keys as callers there)']
      : []),
    ...(parsed.data.NODE_ENV === 'production'
      ? [
          ...missingInProduction(present, uses, parsed.data.PAYMENTS_PROVIDER),
          ...weakInProduction(parsed.data, present, uses, named),
        ]
      : []),
  ];
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  return parsed.data;
}

/** The callers of the API: API_CALLERS, or the one caller of API_KEYS (`dev`, every scope). */
export function apiCallers(config: Pick<Config, 'API_CALLERS' | 'API_KEYS'>): readonly ApiCaller[] {
  return config.API_CALLERS ?? [clearKeyCaller(config.API_KEYS)];
}

/** The names the schema knows; docker-compose.yml is checked against them. */
export const configVariableNames = Object.keys(configSchema.shape);

/** The origins whose browsers may call the codec server. */
export function codecCorsOrigins(config: Pick<Config, 'CODEC_CORS_ORIGINS' | 'TEMPORAL_UI_PORT'>): string[] {
  return (
    config.CODEC_CORS_ORIGINS ?? [
      `http://localhost:${config.TEMPORAL_UI_PORT}`,
      `http://127.0.0.1:${config.TEMPORAL_UI_PORT}`,
    ]
  );
}

/** The operators' tokens the codec server accepts: CODEC_OIDC_ISSUER's, or none. */
export function codecOperatorTokens(
  config: Pick<Config, 'CODEC_OIDC_ISSUER' | 'CODEC_OIDC_AUDIENCE' | 'CODEC_OIDC_SCOPE'>,
): OperatorTokenSettings | undefined {
  if (!config.CODEC_OIDC_ISSUER) return undefined;
  return {
    issuer: config.CODEC_OIDC_ISSUER,
    audience: config.CODEC_OIDC_AUDIENCE,
    scope: config.CODEC_OIDC_SCOPE,
  };
}

/** Where the API listens: API_HOST, or loopback outside production (the dev API key is well known). */
export function apiHost(config: Pick<Config, 'API_HOST' | 'NODE_ENV'>): string {
  return config.API_HOST ?? (config.NODE_ENV === 'production' ? '0.0.0.0' : '127.0.0.1');
}

/** What a lifecycle start leaves out, from the configuration: the API and the Nexus handlers fill it in. */
export function lifecycleStartDefaults(config: Config) {
  return {
    reauthorizeAfter: config.REAUTHORIZE_AFTER,
    expiryPolicy: config.EXPIRY_POLICY,
    lateEventWindow: config.LATE_EVENT_WINDOW,
    idempotencyKeyRetention: config.IDEMPOTENCY_KEY_RETENTION,
    timerCallTimeout: config.TIMER_CALL_TIMEOUT,
  };
}
