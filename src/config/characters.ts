import { z } from 'zod';
import { commaList, optionalUrl, port } from './forms';
import { settingsPiece } from './piece';

/** The characters GraphQL service and how the worker reaches it. */
export const charactersSettings = settingsPiece(
  'Characters service',
  {
    CHARACTERS_PORT: port.default(8070),
    CHARACTERS_URL: optionalUrl,
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'postgres://user@host:port/database')
      .optional(),
    CHARACTERS_DATA_DIR: z.string().min(1).default('.data/characters'),
    CHARACTERS_API_KEYS: commaList.optional(),
  },
  {
    CHARACTERS_PORT: { meaning: 'port of the characters GraphQL service' },
    CHARACTERS_URL: {
      default: 'the local service, on `CHARACTERS_PORT`',
      meaning: 'GraphQL endpoint the activities call',
    },
    DATABASE_URL: { meaning: 'PostgreSQL for the characters store; unset = embedded PGlite' },
    CHARACTERS_DATA_DIR: { meaning: 'embedded store directory' },
    CHARACTERS_API_KEYS: {
      meaning:
        'keys for `upsertCharacter` (`Authorization: Bearer`): the service accepts each, the worker sends the ' +
        'first; required in production',
    },
  },
);
