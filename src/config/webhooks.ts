import { z } from 'zod';
import { commaList, isCertificateOrigin, optionalUrl } from './forms';
import { settingsPiece } from './piece';

/** The webhook intake and PayPal's deliveries: their bounds, the subscription, how signatures are checked. */
export const webhookSettings = settingsPiece(
  'Webhooks',
  {
    WEBHOOK_BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1_048_576),
    WEBHOOK_ID: z.string().min(1).optional(),
    WEBHOOK_LISTENER_URL: optionalUrl,
    WEBHOOK_VERIFY_MODE: z.enum(['api', 'local']).default('api'),
    WEBHOOK_CERT_HOSTS: commaList
      .refine(
        (entries) => entries.every(isCertificateOrigin),
        'host names or origins such as http://localhost:8090',
      )
      .default(['localhost', '127.0.0.1', 'http://localhost:8090', 'http://127.0.0.1:8090']),
    WEBHOOK_TRANSMISSION_TOLERANCE_MS: z.coerce.number().int().positive().default(600_000),
    WEBHOOK_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(600),
    WEBHOOK_REFUSED_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(60),
    WEBHOOK_REMOTE_VERIFY_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(300),
  },
  {
    WEBHOOK_BODY_LIMIT_BYTES: { meaning: 'largest webhook delivery accepted' },
    WEBHOOK_ID: { meaning: 'id of the provider webhook subscription deliveries are verified against' },
    WEBHOOK_LISTENER_URL: {
      default: "the API's, on `API_PORT`",
      meaning: 'public URL of `/webhooks/payments` for the subscription',
    },
    WEBHOOK_VERIFY_MODE: { meaning: '`api` (interface B) or `local` (certificate check)' },
    WEBHOOK_CERT_HOSTS: {
      meaning:
        '`cert_url` hosts (https, port 443) or origins (`http://host:port`, exactly that scheme and port); ' +
        'required in production',
    },
    WEBHOOK_TRANSMISSION_TOLERANCE_MS: {
      meaning:
        'a delivery whose signed transmission time is further from now is refused (400) before any run starts',
    },
    WEBHOOK_RATE_LIMIT_MAX: {
      meaning:
        "webhook deliveries past the intake's cheap checks per window and provider, every sender together: " +
        'at most this many verification runs start a window ([Security](./security.md#doors))',
    },
    WEBHOOK_REFUSED_RATE_LIMIT_MAX: {
      meaning:
        'deliveries refused by the cheap checks per window and client address; more from that address are ' +
        'answered 429, and spend no other budget',
    },
    WEBHOOK_REMOTE_VERIFY_RATE_LIMIT_MAX: {
      meaning:
        "deliveries past the cheap checks that the provider's API verifies (PayPal's api mode), per window " +
        'and client address: one address cannot start unbounded runs',
    },
  },
);
