import { z } from 'zod';
import { endpointKeysSchema } from '../codec/endpoint-keys';
import { nexusCallersSchema } from '../nexus-callers';
import { settingsPiece } from './piece';

/** The payments Nexus service (src/nexus/, docs/nexus.md): who may call, with which keys, how many waits. */
export const nexusSettings = settingsPiece(
  'Nexus',
  {
    NEXUS_CALLERS: nexusCallersSchema.optional(),
    NEXUS_ENDPOINT_KEYS: endpointKeysSchema.optional(),
    NEXUS_OUTCOME_WAITS_PER_CALLER: z.coerce.number().int().positive().default(1_000),
  },
  {
    NEXUS_CALLERS: {
      default: '`orders:*`, prod none',
      meaning:
        'caller namespaces and the Nexus operations each may call, `namespace:op+op,…` (`*`: all); see ' +
        '[Nexus](./nexus.md#who-may-call)',
    },
    NEXUS_ENDPOINT_KEYS: {
      default: '`orders`: in `.data/`',
      meaning:
        "`namespace=keyId:base64,…`: each caller namespace's key for what crosses the endpoint (never " +
        '`PAYLOAD_CODEC_KEYS`); in production one per caller',
    },
    NEXUS_OUTCOME_WAITS_PER_CALLER: {
      meaning:
        'open `awaitOutcome` waits per caller namespace; a new one beyond is refused (`RESOURCE_EXHAUSTED`, not retried)',
    },
  },
);
