import { DEV_KEY_FILE, codecKeysFromConfig } from '../codec/codec-keys';
import { SANDBOX_STRIPE_API_KEY, loadLocalStackConfig } from '../config';
import { currentNamesForChildren } from '../config/renamed-variables';
import { superviseStack } from './child-process';
import { startDevServer, type DevServer } from './dev-server';
import { assertPortsFree, type PortClaim } from './ports';
import { ServiceStartup, announced } from './service-startup';
import { resolveTemporalCli } from './temporal-cli';
import { ORDERS_NAMESPACE } from '../nexus/endpoint';
import { subscribeStripeEndpoint } from '../providers/registry';
import { temporalTarget, type TemporalConnectionOptions } from '../temporal-env';
import { STRIPE_WEBHOOK_ROUTE } from '../webhooks/listener-url';
import { subscribeListener } from '../webhooks/subscribe-listener';

/**
 * `npm start`: the whole local stack on the embedded defaults. A Temporal dev server persisted under .data/
 * (unless TEMPORAL_ADDRESS or the Temporal profile names a server), the payments sandbox (unless PAYPAL_BASE_URL names a provider),
 * the characters service, the worker and the API. Ctrl-C stops everything.
 */
async function main() {
  const config = loadLocalStackConfig();
  const configured = temporalTarget(config);
  // Stripe without STRIPE_BASE_URL: the sandbox answers as Stripe too, on a port of its own.
  const embeddedStripe = config.PAYMENTS_PROVIDER.includes('stripe') && !config.STRIPE_BASE_URL;
  const startup = new ServiceStartup();
  let temporal: DevServer | undefined;
  const supervisor = superviseStack('local stack', async () => {
    await startup.stop();
    await temporal?.stop();
  });

  try {
    const ports: PortClaim[] = [
      ...(configured.addressConfigured
        ? []
        : [
            {
              port: config.TEMPORAL_DEV_PORT,
              what: 'the Temporal dev server',
              variable: 'TEMPORAL_DEV_PORT',
            },
            { port: config.TEMPORAL_UI_PORT, what: 'the Temporal Web UI', variable: 'TEMPORAL_UI_PORT' },
          ]),
      ...(config.PAYPAL_BASE_URL
        ? []
        : [{ port: config.SANDBOX_PORT, what: 'the payments sandbox', variable: 'SANDBOX_PORT' }]),
      ...(embeddedStripe
        ? [{ port: config.STRIPE_SANDBOX_PORT, what: 'the Stripe sandbox', variable: 'STRIPE_SANDBOX_PORT' }]
        : []),
      { port: config.CHARACTERS_PORT, what: 'the characters service', variable: 'CHARACTERS_PORT' },
      { port: config.WORKER_METRICS_PORT, what: 'the worker metrics', variable: 'WORKER_METRICS_PORT' },
      { port: config.API_METRICS_PORT, what: 'the API metrics', variable: 'API_METRICS_PORT' },
      { port: config.API_PORT, what: 'the API', variable: 'API_PORT' },
    ];
    await assertPortsFree(ports);

    // Every process encrypts payloads with the same keys; without PAYLOAD_CODEC_KEYS one is generated once.
    const [encryptionKey] = codecKeysFromConfig(config);
    const codecEndpoint = `http://localhost:${config.API_PORT}/codec`;
    const keySource = config.PAYLOAD_CODEC_KEYS ? 'PAYLOAD_CODEC_KEYS' : DEV_KEY_FILE;
    console.log(announced('Payloads', `encrypted with key "${encryptionKey?.id}" (${keySource})`));
    const { namespace } = configured;
    let connection: TemporalConnectionOptions = configured.connection;
    if (configured.addressConfigured) {
      console.log(
        `Using the Temporal server at ${connection.address}, namespace ${namespace} ` +
          `(TEMPORAL_ADDRESS or the Temporal profile); starting none.`,
      );
    } else {
      const cli = await resolveTemporalCli();
      console.log(`Starting the Temporal dev server (${cli.source}: ${cli.path})…`);
      temporal = await startDevServer({
        cliPath: cli.path,
        port: config.TEMPORAL_DEV_PORT,
        uiPort: config.TEMPORAL_UI_PORT,
        namespace,
        moreNamespaces: [ORDERS_NAMESPACE],
        dbFile: config.TEMPORAL_DB_FILE,
        uiCodecEndpoint: codecEndpoint,
      });
      connection = { address: temporal.address };
      console.log(announced('Temporal server', `${temporal.address} (state in ${config.TEMPORAL_DB_FILE})`));
      console.log(announced('Temporal Web UI', `${temporal.uiUrl}`));
    }
    // The processes inherit the environment, profile included; a dev server started here is named outright.
    const env: NodeJS.ProcessEnv = {
      ...currentNamesForChildren(process.env),
      TEMPORAL_ADDRESS: connection.address,
      TEMPORAL_NAMESPACE: namespace,
    };

    if (config.PAYPAL_BASE_URL) {
      console.log(announced('Payments provider', `${config.PAYPAL_BASE_URL} (PAYPAL_BASE_URL)`));
    } else {
      env.PAYPAL_BASE_URL = await startup.sandbox(config.SANDBOX_PORT, env);
      // Its deliveries name certificates on it, whatever SANDBOX_PORT is.
      env.WEBHOOK_CERT_HOSTS = [...config.WEBHOOK_CERT_HOSTS, new URL(env.PAYPAL_BASE_URL).origin].join(',');
    }
    if (embeddedStripe) env.STRIPE_BASE_URL = await startup.stripeSandbox(config.STRIPE_SANDBOX_PORT, env);
    else if (config.STRIPE_BASE_URL && config.PAYMENTS_PROVIDER.includes('stripe'))
      console.log(announced('Stripe', `${config.STRIPE_BASE_URL} (STRIPE_BASE_URL)`));
    await startup.characters(config.CHARACTERS_PORT, env, 'GraphiQL: /graphiql');

    await startup.worker('worker', env);
    console.log(announced('Worker', `polling ${config.TEMPORAL_TASK_QUEUE}`));
    console.log(announced('Worker metrics', `http://localhost:${config.WORKER_METRICS_PORT}/metrics`));
    const target = { namespace, taskQueue: config.TEMPORAL_TASK_QUEUE };
    await startup.nexus(connection, target);

    await startup.api('api', 'API', config.API_PORT, env);
    console.log(announced('Codec server', `${codecEndpoint} (the Web UI decrypts payloads through it)`));
    console.log(announced('API metrics', `http://localhost:${config.API_METRICS_PORT}/metrics`));

    // Webhooks (src/webhooks/subscribe-listener.ts): the provider delivers to the API's /webhooks/payments.
    await subscribeListener({
      ...config,
      TEMPORAL_ADDRESS: connection.address,
      TEMPORAL_NAMESPACE: namespace,
    });

    if (embeddedStripe) await subscribeStripeSandbox(env.STRIPE_BASE_URL!, config.API_PORT);
    if (config.PAYMENTS_PROVIDER.includes('stripe')) printStripeStart(env.STRIPE_BASE_URL, config.API_PORT);
    console.log('The local stack is up. Ctrl-C stops it.');
    supervisor.watch(startup.processes());
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    await supervisor.stopAll(1);
  }
}

/**
 * The embedded Stripe sandbox delivers every event to the API's Stripe intake: subscribed through
 * /v1/webhook_endpoints by the Stripe adapter, as against Stripe (a real account's endpoint is set in its
 * dashboard or by the same call). The sandbox signs with STRIPE_WEBHOOK_SECRETS, the intake's secrets, so the
 * secret it shows is one the intake already has.
 */
async function subscribeStripeSandbox(stripeUrl: string, apiPort: number): Promise<void> {
  const url = `http://127.0.0.1:${apiPort}${STRIPE_WEBHOOK_ROUTE}`;
  const endpoint = await subscribeStripeEndpoint(stripeUrl, SANDBOX_STRIPE_API_KEY, url);
  console.log(
    announced('Stripe webhooks', `${url} subscribed as ${endpoint.id} (${endpoint.action}; every event)`),
  );
}

/** How to start a Stripe lifecycle on this stack: a held PaymentIntent, then its lifecycle by its `pi_…` id. */
function printStripeStart(stripeUrl: string | undefined, apiPort: number): void {
  const intent = stripeUrl
    ? `curl -s -X POST ${stripeUrl}/sandbox/payment_intents -H 'content-type: application/json' -d '{"amount":10000,"currency":"usd","multicapture":true}'`
    : 'create a PaymentIntent with capture_method=manual and confirm it (Stripe dashboard or API)';
  console.log(
    [
      'Stripe lifecycles (PAYMENTS_PROVIDER includes stripe):',
      `  1. ${intent}`,
      `  2. curl -s -X POST localhost:${apiPort}/v1/lifecycles -H 'authorization: Bearer dev-api-key' \\`,
      `       -H 'content-type: application/json' -d '{"authorizationId":"pi_…"}'   (or "provider":"stripe")`,
    ].join('\n'),
  );
}

void main();
