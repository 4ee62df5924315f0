import { ConfigError, type Config } from '../config';
import { endpointKeysFromConfig } from '../codec/endpoint-keys';
import { nexusCallersFromConfig } from '../nexus-callers';
import type { PaymentsHandlerOptions } from './handlers';

/**
 * The handlers' callers and bound from the configuration. In production every allowed caller needs an
 * endpoint key: without one its answers would be sealed with PAYLOAD_CODEC_KEYS, which it must never hold.
 */
export function nexusCallerSettings(
  config: Pick<
    Config,
    'NODE_ENV' | 'NEXUS_CALLERS' | 'NEXUS_ENDPOINT_KEYS' | 'NEXUS_OUTCOME_WAITS_PER_CALLER'
  >,
): Pick<PaymentsHandlerOptions, 'callers' | 'outcomeWaitsPerCaller'> {
  const callers = nexusCallersFromConfig(config);
  if (config.NODE_ENV === 'production') {
    const keys = endpointKeysFromConfig(config);
    const keyless = [...callers.keys()].filter((namespace) => !keys.has(namespace));
    if (keyless.length > 0) {
      throw new ConfigError(
        `Invalid configuration:\n  NEXUS_ENDPOINT_KEYS: required for every namespace of NEXUS_CALLERS when ` +
          `NODE_ENV=production (none for ${keyless.join(', ')})`,
      );
    }
  }
  return { callers, outcomeWaitsPerCaller: config.NEXUS_OUTCOME_WAITS_PER_CALLER };
}
