import { z } from 'zod';
import { DEFAULT_PROVIDER, providerNames } from '../provider-names';
import { commaList } from './forms';
import { settingsPiece } from './piece';

/** What every provider shares: which ones lifecycles run on, and how long one request may take. */
export const providerSettings = settingsPiece(
  'Providers',
  {
    PAYMENTS_PROVIDER: commaList.pipe(z.array(z.enum(providerNames)).min(1)).default([DEFAULT_PROVIDER]),
    PAYMENTS_TIMEOUT_MS: z.coerce.number().int().positive().max(300_000).default(10_000),
  },
  {
    PAYMENTS_PROVIDER: {
      meaning:
        'the providers lifecycles run on: `paypal`, `stripe` or `paypal,stripe`; a start on another is a 400 ' +
        'naming `provider` ([Providers](./providers.md#running-lifecycles-on-stripe))',
    },
    PAYMENTS_TIMEOUT_MS: {
      meaning: "time-out of one provider request, PayPal's or Stripe's; at most 300000 (5 minutes)",
    },
  },
);
