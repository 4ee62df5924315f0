import { Client, Connection } from '@temporalio/client';
import { LifecycleClient } from '../client/lifecycle-client';
import { codecFromConfig, encryptingDataConverter } from '../codec/data-converter';
import { apiHost, codecCorsOrigins, lifecycleStartDefaults, loadConfig } from '../config';
import { createLogger } from '../logger';
import { temporalTarget } from '../temporal-env';
import { deliveryHeadersFromConfig } from '../providers/registry';
import { VerificationStarter } from '../webhooks/verification-starter';
import { apiLimits } from './limits';
import { buildApi } from './server';
import { apiConnectionOptions } from './temporal-connection';

/** The API process: HTTP for order systems and webhook deliveries, a Temporal client behind it. */
async function main() {
  const config = loadConfig();
  const logger = createLogger(config, 'api');
  const temporal = temporalTarget(config);
  // Keys first: a production API without PAYLOAD_CODEC_KEYS stops before it connects.
  const codec = codecFromConfig(config);
  const connection = await Connection.connect(apiConnectionOptions(temporal.connection));
  const client = new Client({
    connection,
    namespace: temporal.namespace,
    dataConverter: encryptingDataConverter(codec),
  });
  const app = await buildApi({
    lifecycles: new LifecycleClient(client, config.TEMPORAL_TASK_QUEUE),
    apiKeys: config.API_KEYS,
    defaults: lifecycleStartDefaults(config),
    logger,
    codec: {
      codec,
      corsOrigins: codecCorsOrigins(config),
      loopbackUiWithoutKey: config.NODE_ENV !== 'production',
    },
    webhooks: {
      verifications: new VerificationStarter({
        client,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        mode: config.WEBHOOK_VERIFY_MODE,
        webhookId: config.WEBHOOK_ID,
      }),
      bodyLimitBytes: config.WEBHOOK_BODY_LIMIT_BYTES,
      headerNames: deliveryHeadersFromConfig(config),
      transmissionToleranceMs: config.WEBHOOK_TRANSMISSION_TOLERANCE_MS,
    },
    limits: apiLimits(config),
  });
  const close = async () => {
    await app.close();
    await connection.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void close());
  process.on('SIGTERM', () => void close());
  const host = apiHost(config);
  await app.listen({ port: config.API_PORT, host });
  logger.info(
    {
      host,
      url: `http://localhost:${config.API_PORT}`,
      docs: `http://localhost:${config.API_PORT}/docs`,
      codec: `http://localhost:${config.API_PORT}/codec`,
      metrics: `http://localhost:${config.API_PORT}/metrics`,
    },
    'api listening',
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
