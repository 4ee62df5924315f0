import { z } from 'zod';
import { optionalUrl, port } from './forms';
import { settingsPiece } from './piece';

/** The local payments provider: where it listens and the contract it answers by. */
export const sandboxSettings = settingsPiece(
  'Payments sandbox',
  {
    SANDBOX_PORT: port.default(8090),
    SANDBOX_MODE: z.enum(['spec', 'paypal', 'stripe']).optional(),
    STRIPE_SANDBOX_PORT: port.default(8091),
    SANDBOX_HOST: z.string().min(1).default('127.0.0.1'),
    SANDBOX_PUBLIC_URL: optionalUrl,
    SANDBOX_AUTHORIZATION_VALIDITY_DAYS: z.coerce.number().positive().max(365).default(29),
  },
  {
    SANDBOX_PORT: {
      meaning: "port of the local payments sandbox; the worker's PayPal without `PAYPAL_BASE_URL`",
    },
    SANDBOX_MODE: {
      meaning: 'the contract the sandbox answers by: `spec`, `paypal` or `stripe`; unset = `PAYPAL_DIALECT`',
    },
    STRIPE_SANDBOX_PORT: {
      meaning: "port of the local sandbox's Stripe mode (`npm start` with Stripe and no `STRIPE_BASE_URL`)",
    },
    SANDBOX_HOST: {
      meaning: 'listen address of the sandbox; `0.0.0.0` in a container, so that the others reach it',
    },
    SANDBOX_PUBLIC_URL: {
      meaning: 'the URL others reach the sandbox at (links, `cert_url`), e.g. in containers',
    },
    SANDBOX_AUTHORIZATION_VALIDITY_DAYS: { meaning: 'when sandbox authorizations expire; at most 365' },
  },
);
