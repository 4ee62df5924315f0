import { z } from 'zod';
import { settingsPiece } from './piece';

export const processSettings = settingsPiece(
  'Every process',
  {
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    ALLOW_INSECURE_PROVIDER_FOR_TESTS: z.enum(['0', '1']).default('0'),
  },
  {
    NODE_ENV: {
      meaning:
        '`development`, `test` or `production` (JSON logs; the secrets of [Security](./security.md) required)',
    },
    LOG_LEVEL: { meaning: 'pino level' },
    ALLOW_INSECURE_PROVIDER_FOR_TESTS: {
      meaning:
        '`1`: production accepts a test provider (plain-http provider, http or loopback certificate hosts, the ' +
        "sandbox's credentials); see [below](#production-refusals)",
    },
  },
);
