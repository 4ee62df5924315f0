import { z } from 'zod';
import { commaList, flag, optionalUrl } from './forms';
import { settingsPiece } from './piece';

/** The Stripe sandbox's test key and signing secret: the local stack's defaults, never production's. */
export const SANDBOX_STRIPE_API_KEY = 'sk_test_sandbox';
export const SANDBOX_STRIPE_WEBHOOK_SECRET = 'whsec_sandbox';

export const stripeSettings = settingsPiece(
  'Stripe',
  {
    STRIPE_API_KEY: z.string().min(1).default(SANDBOX_STRIPE_API_KEY),
    STRIPE_BASE_URL: optionalUrl,
    STRIPE_WEBHOOK_SECRETS: commaList
      .pipe(
        z
          .array(z.string().regex(/^whsec_./, 'an endpoint signing secret, whsec_…'))
          .min(1, 'at least one endpoint signing secret, whsec_…'),
      )
      .default([SANDBOX_STRIPE_WEBHOOK_SECRET]),
    STRIPE_MULTICAPTURE: flag.default('false').transform((value) => value === 'true' || value === '1'),
  },
  {
    STRIPE_API_KEY: {
      default: "the sandbox's test key",
      meaning: "Stripe's secret key; with Stripe in production a live `sk_live_…` key is required",
    },
    STRIPE_BASE_URL: {
      meaning:
        "Stripe's base URL; unset = `api.stripe.com` (under `npm start`: the embedded sandbox's Stripe mode); " +
        'https only in production',
    },
    STRIPE_WEBHOOK_SECRETS: {
      default: "the sandbox's",
      meaning:
        'signing secrets of the Stripe endpoint (`whsec_…`, comma-separated, old and new in a rotation): the API ' +
        'serves `/webhooks/stripe` with Stripe in `PAYMENTS_PROVIDER`; production: set, each `whsec_` + 24 or more',
    },
    STRIPE_MULTICAPTURE: {
      meaning:
        "`true`: the account's PaymentIntents request multicapture (up to 50 partial captures each); otherwise " +
        'one capture releases the rest',
    },
  },
);
