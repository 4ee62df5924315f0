import { Client, Connection } from '@temporalio/client';
import { LifecycleClient } from '../client/lifecycle-client';
import { codecFromConfig, encryptingDataConverter } from '../codec/data-converter';
import { operatorTokenVerifier } from '../codec/operator-tokens';
import {
  apiCallers,
  apiHost,
  codecCorsOrigins,
  codecOperatorTokens,
  lifecycleStartDefaults,
  loadApiConfig,
  productionSettingsOf,
} from '../config';
import { createLogger } from '../logger';
import { Registry } from 'prom-client';
import { deliveryIntakeFromConfig } from '../providers/registry';
import { temporalTarget } from '../temporal-env';
import { webhookListenerUrl } from '../webhooks/listener-url';
import { verificationStarterFor } from '../webhooks/verification-starter';
import { apiLimits } from './limits';
import { recordHoldsEnding } from './holds-metric';
import { serveMetrics } from './metrics';
import { buildApi } from './server';
import { apiConnectionOptions } from './temporal-connection';

/** The API process: HTTP for order systems and webhook deliveries, a Temporal client behind it. */
async function main() {
  // Local verification without WEBHOOK_ID looks the listener's subscription up at the provider.
  const looksUpSubscription = process.env.WEBHOOK_VERIFY_MODE === 'local' && !process.env.WEBHOOK_ID;
  const config = loadApiConfig(process.env, [
    ...productionSettingsOf.api,
    ...(looksUpSubscription ? (['PAYPAL_BASE_URL', 'PAYPAL_CLIENT_SECRET'] as const) : []),
  ]);
  const logger = createLogger(config, 'api');
  const temporal = temporalTarget(config);
  // Keys first: a production API without PAYLOAD_CODEC_KEYS stops before it connects.
  const codec = codecFromConfig(config);
  const operatorTokens = codecOperatorTokens(config);
  const connection = await Connection.connect(apiConnectionOptions(temporal.connection));
  const client = new Client({
    connection,
    namespace: temporal.namespace,
    dataConverter: encryptingDataConverter(codec),
  });
  const metrics = new Registry();
  const app = await buildApi({
    lifecycles: new LifecycleClient(client, config.TEMPORAL_TASK_QUEUE),
    callers: apiCallers(config),
    defaults: lifecycleStartDefaults(config),
    providers: config.PAYMENTS_PROVIDER,
    logger,
    codec: {
      codec,
      corsOrigins: codecCorsOrigins(config),
      // With operators' logins, the local UI too decodes only with an operator's token.
      loopbackUiWithoutKey: config.NODE_ENV !== 'production' && !operatorTokens,
      operatorTokens: operatorTokens && operatorTokenVerifier(operatorTokens),
    },
    // One intake per provider PAYMENTS_PROVIDER names, at POST /webhooks/<provider>.
    webhooks: {
      bodyLimitBytes: config.WEBHOOK_BODY_LIMIT_BYTES,
      intakes: config.PAYMENTS_PROVIDER.map((name) => {
        const delivery = deliveryIntakeFromConfig(name, config, webhookListenerUrl(config));
        return {
          delivery,
          verifications: verificationStarterFor(delivery, {
            client,
            taskQueue: config.TEMPORAL_TASK_QUEUE,
            configured: { mode: config.WEBHOOK_VERIFY_MODE, webhookId: config.WEBHOOK_ID },
          }),
        };
      }),
    },
    limits: apiLimits(config),
    trustProxy: config.TRUST_PROXY,
    metrics,
    docs: config.API_DOCS ?? config.NODE_ENV !== 'production',
  });
  recordHoldsEnding(metrics, client, config.PAYMENTS_PROVIDER, logger);
  const metricsServer = await serveMetrics(metrics, config.API_METRICS_PORT, config.API_METRICS_HOST);
  const close = async () => {
    await app.close();
    metricsServer.close();
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
      docs: app.hasRoute({ method: 'GET', url: '/openapi.json' })
        ? `http://localhost:${config.API_PORT}/docs`
        : 'off',
      codec: `http://localhost:${config.API_PORT}/codec`,
      metrics: `http://${config.API_METRICS_HOST}:${config.API_METRICS_PORT}/metrics`,
    },
    'api listening',
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
