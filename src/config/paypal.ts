import { z } from 'zod';
import { optionalUrl } from './forms';
import { settingsPiece } from './piece';

/** The sandbox's credentials, the local stack's defaults: production refuses them. */
export const SANDBOX_CLIENT_ID = 'sandbox-client';
export const SANDBOX_CLIENT_SECRET = 'sandbox-secret';

/** PayPal's settings (interfaces A and B); no base URL means the embedded sandbox. */
export const paypalSettings = settingsPiece(
  'PayPal',
  {
    PAYPAL_BASE_URL: optionalUrl,
    PAYPAL_DIALECT: z.enum(['spec', 'paypal']).default('spec'),
    PAYPAL_CLIENT_ID: z.string().min(1).default(SANDBOX_CLIENT_ID),
    PAYPAL_CLIENT_SECRET: z.string().min(1).default(SANDBOX_CLIENT_SECRET),
    PAYPAL_ACCESS_TOKEN: z.string().min(1).optional(),
  },
  {
    PAYPAL_BASE_URL: {
      meaning: "PayPal's base URL; unset = the embedded sandbox; required in production",
    },
    PAYPAL_DIALECT: {
      meaning: "`spec` (SERVICE-* headers) or `paypal` (PAYPAL-* headers); also the local sandbox's mode",
    },
    PAYPAL_CLIENT_ID: { default: "the sandbox's", meaning: 'OAuth2 client id' },
    PAYPAL_CLIENT_SECRET: {
      default: "the sandbox's",
      meaning: 'OAuth2 client secret; it (or `PAYPAL_ACCESS_TOKEN`) required in production',
    },
    PAYPAL_ACCESS_TOKEN: { meaning: 'a static bearer token instead of client credentials' },
  },
);
