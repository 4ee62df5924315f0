import { z } from 'zod';
import { apiCallersSchema, clearKeyCaller, type ApiCaller } from '../api-callers';
import { commaList, isProxyAddress, port } from './forms';
import { settingsPiece, type SettingsOf } from './piece';

/** The API key development runs with: well known, so production refuses it. */
export const DEV_API_KEY = 'dev-api-key';

/** The HTTP API for order systems and webhook deliveries: its listeners, callers and doors (docs/security.md). */
export const apiSettings = settingsPiece(
  'HTTP API',
  {
    API_PORT: port.default(8080),
    API_HOST: z.string().min(1).optional(),
    API_KEYS: commaList.default([DEV_API_KEY]),
    API_CALLERS: apiCallersSchema.optional(),
    API_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(1_000),
    API_RATE_LIMIT_WINDOW_MS: z.coerce.number().int().positive().default(60_000),
    API_CALLER_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(6_000),
    TRUST_PROXY: commaList
      .refine(
        (entries) => entries.every(isProxyAddress),
        'addresses or CIDRs such as 10.0.0.0/8 (never "true")',
      )
      .default([]),
    API_METRICS_PORT: port.default(9470),
    API_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    API_DOCS: z
      .enum(['true', 'false'])
      .transform((value) => value === 'true')
      .optional(),
    API_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
    API_HEADERS_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    API_ANSWER_WAIT_MS: z.coerce.number().int().positive().default(25_000),
  },
  {
    API_PORT: { meaning: 'HTTP API for order systems and webhook deliveries' },
    API_HOST: {
      default: '`127.0.0.1`, prod all',
      meaning: 'listen address of the API: loopback in development, `0.0.0.0` in production',
    },
    API_KEYS: {
      meaning:
        'comma-separated bearer keys in the clear, all of one caller `dev` with every scope; not with ' +
        '`API_CALLERS`; in production ≥ 32 characters each',
    },
    API_CALLERS: {
      meaning:
        "the API's callers: `id:scope+scope:sha256[,sha256]`, `;` between callers (API callers, below); " +
        'production needs it or `API_KEYS`',
    },
    API_RATE_LIMIT_MAX: {
      meaning:
        'requests per client address and window on requests without a known API key (health, docs, unknown ' +
        'paths, wrong keys); more are answered 429 `RATE_LIMITED`',
    },
    API_RATE_LIMIT_WINDOW_MS: { meaning: "the rate limit's window" },
    API_CALLER_RATE_LIMIT_MAX: {
      meaning: 'requests per API key and window: a caller has its own budget, whatever its address',
    },
    TRUST_PROXY: {
      meaning:
        'the load balancers in front of the API, as exact addresses or CIDRs (`10.0.0.5,10.1.0.0/16`); the ' +
        'client is then the first address of `X-Forwarded-For` that is not one of them. Never `true`; a bad ' +
        'entry stops start-up',
    },
    API_METRICS_PORT: {
      meaning: "the API's Prometheus metrics (`/metrics`), on their own listener, never on `API_PORT`",
    },
    API_METRICS_HOST: {
      meaning: 'where that listener binds (`0.0.0.0` in a container, on the internal network only)',
    },
    API_DOCS: {
      meaning:
        '`true` or `false`: `/docs` and `/openapi.json`; unset = served outside production, off in production',
    },
    API_REQUEST_TIMEOUT_MS: {
      meaning: 'a request, body included, must arrive within this; then 408 and the connection closes',
    },
    API_HEADERS_TIMEOUT_MS: {
      meaning: "a request's headers must arrive within this (at most `API_REQUEST_TIMEOUT_MS`)",
    },
    API_ANSWER_WAIT_MS: {
      meaning:
        'a lifecycle command (start, capture, void, reauthorize, refund) answers within this; else 504 ' +
        '`ANSWER_PENDING` with `Retry-After` while it goes on',
    },
  },
);

type ApiConfig = SettingsOf<typeof apiSettings>;

/** The callers of the API: API_CALLERS, or the one caller of API_KEYS (`dev`, every scope). */
export function apiCallers(config: Pick<ApiConfig, 'API_CALLERS' | 'API_KEYS'>): readonly ApiCaller[] {
  return config.API_CALLERS ?? [clearKeyCaller(config.API_KEYS)];
}

/** Where the API listens: API_HOST, or loopback outside production (the dev API key is well known). */
export function apiHost(config: Pick<ApiConfig, 'API_HOST'> & { NODE_ENV: string }): string {
  return config.API_HOST ?? (config.NODE_ENV === 'production' ? '0.0.0.0' : '127.0.0.1');
}
