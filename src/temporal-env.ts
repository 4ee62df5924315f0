import { existsSync } from 'node:fs';
import type { Metadata, TLSConfig } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { ConfigError, type Config } from './config';

export const DEFAULT_NAMESPACE = 'default';

/** What Connection.connect and NativeConnection.connect both take. */
export interface TemporalConnectionOptions {
  address: string;
  tls?: TLSConfig | boolean;
  apiKey?: string;
  metadata?: Metadata;
}

export interface TemporalTarget {
  connection: TemporalConnectionOptions;
  namespace: string;
  /** The address came from TEMPORAL_ADDRESS or the profile, not the local dev server's default. */
  addressConfigured: boolean;
}

/** The variables of Temporal's environment configuration that the configuration schema checks. */
const checkedVariables = [
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_CONFIG_FILE',
  'TEMPORAL_PROFILE',
  'TEMPORAL_API_KEY',
  'TEMPORAL_TLS',
  'TEMPORAL_TLS_CLIENT_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  'TEMPORAL_TLS_SERVER_NAME',
] as const;

export type TemporalEnvConfig = Pick<Config, 'TEMPORAL_DEV_PORT' | (typeof checkedVariables)[number]>;

/**
 * Where and how every process reaches Temporal: Temporal's environment configuration, which the `temporal`
 * CLI reads too, so one profile serves both. The profile TEMPORAL_PROFILE (default `default`) of
 * TEMPORAL_CONFIG_FILE (default ~/.config/temporalio/temporal.toml), overridden by TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS and TEMPORAL_TLS_*; what none names is the local dev
 * server's address (TEMPORAL_DEV_PORT) and the `default` namespace. `config`'s values of these variables
 * win over `env`'s (a caller may have set them on the config it passes).
 */
export function temporalTarget(
  config: TemporalEnvConfig,
  env: NodeJS.ProcessEnv = process.env,
): TemporalTarget {
  const merged: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    // An empty variable means "not set", as in loadConfig.
    if (value) merged[name] = value;
  }
  for (const name of checkedVariables) {
    const value = config[name];
    if (value) merged[name] = value;
  }
  const file = merged.TEMPORAL_CONFIG_FILE;
  if (file && !existsSync(file)) {
    throw new ConfigError(`Invalid configuration:\n  TEMPORAL_CONFIG_FILE: ${file} does not exist`);
  }
  let loaded: ReturnType<typeof loadClientConnectConfig>;
  try {
    loaded = loadClientConnectConfig({ overrideEnvVars: merged });
  } catch (error) {
    const where = file ?? 'the default temporal.toml';
    throw new ConfigError(
      `Invalid configuration:\n  TEMPORAL_PROFILE/TEMPORAL_CONFIG_FILE (${where}): ${(error as Error).message}`,
    );
  }
  const { address, tls, apiKey, metadata } = loaded.connectionOptions;
  const connection: TemporalConnectionOptions = {
    address: address ?? `127.0.0.1:${config.TEMPORAL_DEV_PORT}`,
    ...(tls !== undefined && tls !== null && { tls }),
    ...(apiKey !== undefined && { apiKey }),
    ...(metadata !== undefined && { metadata }),
  };
  return {
    connection,
    namespace: loaded.namespace ?? DEFAULT_NAMESPACE,
    addressConfigured: address !== undefined,
  };
}
