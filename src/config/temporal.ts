import { z } from 'zod';
import { flag, port } from './forms';
import { settingsPiece } from './piece';

/**
 * The connection is Temporal's environment configuration (src/temporal-env.ts), which reads these and the
 * profile TEMPORAL_PROFILE of TEMPORAL_CONFIG_FILE; they are listed here to be checked and known.
 */
export const temporalSettings = settingsPiece(
  'Temporal connection',
  {
    TEMPORAL_ADDRESS: z
      .string()
      .regex(/^[^:\s]+:\d+$/, 'host:port')
      .optional(),
    TEMPORAL_NAMESPACE: z.string().min(1).optional(),
    TEMPORAL_CONFIG_FILE: z.string().min(1).optional(),
    TEMPORAL_PROFILE: z.string().min(1).optional(),
    TEMPORAL_API_KEY: z.string().min(1).optional(),
    TEMPORAL_TLS: flag.optional(),
    TEMPORAL_TLS_CLIENT_CERT_PATH: z.string().min(1).optional(),
    TEMPORAL_TLS_CLIENT_KEY_PATH: z.string().min(1).optional(),
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: z.string().min(1).optional(),
    TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
    TEMPORAL_TASK_QUEUE: z.string().min(1).default('payment-authorizations'),
    TEMPORAL_DEV_PORT: port.default(7233),
  },
  {
    TEMPORAL_ADDRESS: {
      default: "the profile's",
      meaning:
        '`host:port` of a Temporal server; neither it nor a profile = `npm start` runs a dev server on `TEMPORAL_DEV_PORT`',
    },
    TEMPORAL_NAMESPACE: {
      default: "the profile's",
      meaning: 'namespace; neither it nor a profile = `default`',
    },
    TEMPORAL_CONFIG_FILE: {
      default: '`~/.config/temporalio/temporal.toml`',
      meaning:
        "Temporal's environment configuration file ([below](#temporal-connection-one-profile-for-the-service-and-the-cli))",
    },
    TEMPORAL_PROFILE: { default: '`default`', meaning: 'the profile of that file to use' },
    TEMPORAL_API_KEY: {
      default: "the profile's",
      meaning: 'API key sent as `Authorization: Bearer`; turns TLS on',
    },
    TEMPORAL_TLS: { default: "the profile's", meaning: '`true`/`false`: TLS to the frontend' },
    TEMPORAL_TLS_CLIENT_CERT_PATH: {
      default: "the profile's",
      meaning: 'client certificate (PEM) for mTLS; `TEMPORAL_TLS_CLIENT_CERT_DATA` passes the PEM itself',
    },
    TEMPORAL_TLS_CLIENT_KEY_PATH: {
      default: "the profile's",
      meaning: 'its private key (PEM); `TEMPORAL_TLS_CLIENT_KEY_DATA` passes the PEM itself',
    },
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: {
      default: 'system roots',
      meaning:
        "CA that signed the frontend's certificate; `TEMPORAL_TLS_SERVER_CA_CERT_DATA` passes the PEM itself",
    },
    TEMPORAL_TLS_SERVER_NAME: {
      default: "the address's host",
      meaning: "name to verify the frontend's certificate against",
    },
    TEMPORAL_TASK_QUEUE: { meaning: 'task queue of the worker' },
    TEMPORAL_DEV_PORT: {
      meaning:
        "gRPC port of the dev server; without an address or a profile, every process's Temporal address",
    },
  },
);

/** The Temporal dev server `npm start` runs when no server is named, and its Web UI. */
export const devServerSettings = settingsPiece(
  'Temporal dev server',
  {
    TEMPORAL_CLI_PATH: z.string().min(1).optional(),
    TEMPORAL_UI_PORT: port.default(8233),
    TEMPORAL_DB_FILE: z.string().min(1).default('.data/temporal.sqlite'),
  },
  {
    TEMPORAL_CLI_PATH: { meaning: 'a `temporal` binary to use (resolver step 1)' },
    TEMPORAL_UI_PORT: {
      meaning: "Web UI port of the dev server; the codec server's default browser origin",
    },
    TEMPORAL_DB_FILE: { meaning: 'SQLite file of the dev server' },
  },
);
