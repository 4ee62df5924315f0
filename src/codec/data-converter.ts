import type { DataConverter, PayloadCodec } from '@temporalio/common';
import { codecKeysFromConfig, type CodecSettings } from './codec-keys';
import { endpointKeyFor, endpointKeysFromConfig, type EndpointKeys } from './endpoint-keys';
import { EncryptionCodec } from './payload-encryption';

/** The module exporting the failure converter that encodes failure messages (see failure-converter.ts). */
export const FAILURE_CONVERTER_PATH = require.resolve('./failure-converter');

/**
 * The payload codec of the service, with the configured keys (or the local stack's generated one), and the
 * Nexus callers' endpoint keys for what crosses the endpoint (src/nexus/endpoint-keys.ts).
 */
export function codecFromConfig(
  config: CodecSettings & { NEXUS_ENDPOINT_KEYS?: EndpointKeys },
): EncryptionCodec {
  const endpointKeys = endpointKeysFromConfig(config);
  return new EncryptionCodec(codecKeysFromConfig(config), {
    decryptAlso: [...endpointKeys.values()].flat(),
    encryptFor: endpointKeyFor(endpointKeys),
  });
}

/**
 * The data converter of every Temporal client and worker of the service: payloads are encrypted on the way
 * to the server, failure messages included. Search attributes never pass through codecs, so they stay readable
 * and searchable.
 */
export function encryptingDataConverter(codec: PayloadCodec): DataConverter {
  return { payloadCodecs: [codec], failureConverterPath: FAILURE_CONVERTER_PATH };
}

export function dataConverterFromConfig(
  config: CodecSettings & { NEXUS_ENDPOINT_KEYS?: EndpointKeys },
): DataConverter {
  return encryptingDataConverter(codecFromConfig(config));
}
