import {
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  makeTelemetryFilterString,
} from '@temporalio/worker';
import { createActivities } from '../activities';
import { dataConverterFromConfig } from '../codec/data-converter';
import { lifecycleStartDefaults, loadWorkerConfig, productionSettingsOf } from '../config';
import { createLogger } from '../logger';
import { nexusCallerSettings } from '../nexus/handler-config';
import { paymentsServiceHandler } from '../nexus/handlers';
import { createOutcomeActivities } from '../activities/payment-outcome';
import { charactersClientFromConfig } from '../characters/client';
import { providersFromConfig } from '../providers/registry';
import { workerPrometheusExporter } from './prometheus';
import { webhookListenerUrl } from '../webhooks/listener-url';
import { temporalTarget } from '../temporal-env';
import { workerDeploymentOptions } from './deployment-version';
import { WorkerDeployment, makeCurrentIfFirst } from './worker-deployment';

/**
 * The worker process: hosts every workflow and activity on the task queue. SIGINT/SIGTERM start a graceful
 * shutdown: polling stops, in-flight activities get `shutdownGraceTime` to finish, then are cancelled.
 */
async function main() {
  const config = loadWorkerConfig(process.env, productionSettingsOf.worker);
  const log = createLogger(config, 'worker');
  // Keys first: a production worker without PAYLOAD_CODEC_KEYS (or a caller's endpoint key) stops before it connects.
  const dataConverter = dataConverterFromConfig(config);
  const nexusCallers = nexusCallerSettings(config);
  Runtime.install({
    logger: new DefaultLogger(
      config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace' ? 'DEBUG' : 'WARN',
    ),
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: 'WARN' }) },
      metrics: workerPrometheusExporter(`0.0.0.0:${config.WORKER_METRICS_PORT}`),
    },
  });

  // Each configured provider's calls, under the activity names its lifecycles schedule (providerActivityName).
  const providers = providersFromConfig(
    config,
    { paypal: config.PAYPAL_BASE_URL ?? `http://127.0.0.1:${config.SANDBOX_PORT}` },
    log,
  );
  const temporal = temporalTarget(config);
  const deployment = workerDeploymentOptions(config);
  const connection = await NativeConnection.connect(temporal.connection);
  const worker = await Worker.create({
    connection,
    namespace: temporal.namespace,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    dataConverter,
    ...(config.WORKFLOW_BUNDLE_PATH
      ? { workflowBundle: { codePath: config.WORKFLOW_BUNDLE_PATH } }
      : { workflowsPath: require.resolve('../workflows') }),
    activities: {
      ...createActivities({
        // Webhook subscriptions stay with the first provider (PayPal's when configured); each delivery's run
        // is checked by its own provider's webhook calls (createProviderWebhookActivities).
        provider: providers.find((provider) => provider.name === 'paypal') ?? providers[0]!,
        providers,
        characters: charactersClientFromConfig(config),
        webhooks: { listenerUrl: webhookListenerUrl(config) },
      }),
      ...createOutcomeActivities(),
    },
    // The payments Nexus service (src/nexus/), reached through the `payments` endpoint from other namespaces.
    nexusServices: [
      paymentsServiceHandler({
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        providers: config.PAYMENTS_PROVIDER,
        defaults: lifecycleStartDefaults(config),
        ...nexusCallers,
      }),
    ],
    maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS,
    shutdownGraceTime: '10 seconds',
    ...(deployment && { workerDeploymentOptions: deployment }),
  });
  log.info(
    {
      address: temporal.connection.address,
      namespace: temporal.namespace,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      providers: config.PAYMENTS_PROVIDER,
      metrics: `http://localhost:${config.WORKER_METRICS_PORT}/metrics`,
      ...(deployment && { deploymentVersion: deployment.version }),
    },
    'worker polling',
  );
  const stopped = new AbortController();
  const running = worker.run();
  if (deployment) {
    const own = new WorkerDeployment(connection, temporal.namespace, deployment.version.deploymentName);
    void makeCurrentIfFirst(own, deployment.version, {
      signal: stopped.signal,
      log: (line) => log.info(line),
      waiting: (why) => log.warn({ why }, 'the worker deployment has no current version yet'),
    });
  }
  try {
    await running;
  } finally {
    stopped.abort();
    await connection.close();
    log.info('worker stopped');
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
