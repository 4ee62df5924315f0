import { DEV_KEY_FILE, codecKeysFromConfig } from '../codec/codec-keys';
import { loadConfig } from '../config';
import { runService, superviseStack, waitForHttp, waitForLine, type ServiceProcess } from './child-process';
import { startDevServer, type DevServer } from './dev-server';
import { assertPortFree } from './ports';
import { resolveTemporalCli } from './temporal-cli';
import { ORDERS_NAMESPACE, setUpPaymentsNexus } from '../nexus/endpoint';
import { subscribeListener } from '../webhooks/subscribe-listener';

/**
 * `npm start`: the whole local stack on the embedded defaults. A Temporal dev server persisted under .data/
 * (unless TEMPORAL_ADDRESS points at one), the payments sandbox (unless PAYMENTS_BASE_URL names a provider),
 * the characters service, the worker and the API. Ctrl-C stops everything.
 */
async function main() {
  const config = loadConfig();
  const services: ServiceProcess[] = [];
  let temporal: DevServer | undefined;
  const supervisor = superviseStack('local stack', async () => {
    await Promise.all(services.map((service) => service.stop()));
    await temporal?.stop();
  });

  try {
    // Every process encrypts payloads with the same keys; without PAYLOAD_CODEC_KEYS one is generated once.
    const [encryptionKey] = codecKeysFromConfig(config);
    const codecEndpoint = `http://localhost:${config.API_PORT}/codec`;
    console.log(
      `Payloads:          encrypted with key "${encryptionKey?.id}" (${config.PAYLOAD_CODEC_KEYS ? 'PAYLOAD_CODEC_KEYS' : DEV_KEY_FILE})`,
    );
    let temporalAddress = config.TEMPORAL_ADDRESS;
    if (temporalAddress) {
      console.log(`Using the Temporal server at ${temporalAddress} (TEMPORAL_ADDRESS); starting none.`);
    } else {
      await assertPortFree(config.TEMPORAL_DEV_PORT, 'the Temporal dev server', 'TEMPORAL_DEV_PORT');
      await assertPortFree(config.TEMPORAL_UI_PORT, 'the Temporal Web UI', 'TEMPORAL_UI_PORT');
      const cli = await resolveTemporalCli();
      console.log(`Starting the Temporal dev server (${cli.source}: ${cli.path})…`);
      temporal = await startDevServer({
        cliPath: cli.path,
        port: config.TEMPORAL_DEV_PORT,
        uiPort: config.TEMPORAL_UI_PORT,
        namespace: config.TEMPORAL_NAMESPACE,
        moreNamespaces: [ORDERS_NAMESPACE],
        dbFile: config.TEMPORAL_DB_FILE,
        uiCodecEndpoint: codecEndpoint,
      });
      temporalAddress = temporal.address;
      console.log(`Temporal server:   ${temporal.address} (state in ${config.TEMPORAL_DB_FILE})`);
      console.log(`Temporal Web UI:   ${temporal.uiUrl}`);
    }
    const env: NodeJS.ProcessEnv = { TEMPORAL_ADDRESS: temporalAddress };

    if (config.PAYMENTS_BASE_URL) {
      console.log(`Payments provider: ${config.PAYMENTS_BASE_URL} (PAYMENTS_BASE_URL)`);
    } else {
      await assertPortFree(config.SANDBOX_PORT, 'the payments sandbox', 'SANDBOX_PORT');
      const sandboxUrl = `http://127.0.0.1:${config.SANDBOX_PORT}`;
      const sandbox = runService('sandbox', 'src/sandbox/main.ts', env);
      services.push(sandbox);
      await waitForHttp(`${sandboxUrl}/sandbox/deliveries`, sandbox);
      env.PAYMENTS_BASE_URL = sandboxUrl;
      console.log(`Payments sandbox:  ${sandboxUrl} (control API under /sandbox)`);
    }

    await assertPortFree(config.CHARACTERS_PORT, 'the characters service', 'CHARACTERS_PORT');
    const characters = runService('characters', 'src/characters/main.ts', env);
    services.push(characters);
    await waitForHttp(`http://127.0.0.1:${config.CHARACTERS_PORT}/healthz`, characters);
    console.log(
      `Characters:        http://localhost:${config.CHARACTERS_PORT}/graphql (GraphiQL: /graphiql)`,
    );

    await assertPortFree(config.WORKER_METRICS_PORT, 'the worker metrics', 'WORKER_METRICS_PORT');
    const worker = runService('worker', 'src/workers/main.ts', env);
    services.push(worker);
    await waitForLine(worker, 'worker polling');
    console.log(`Worker:            polling ${config.TEMPORAL_TASK_QUEUE}`);
    console.log(`Worker metrics:    http://localhost:${config.WORKER_METRICS_PORT}/metrics`);
    const nexus = await setUpPaymentsNexus(temporalAddress, {
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
    });
    console.log(`Nexus:             ${nexus}`);

    await assertPortFree(config.API_PORT, 'the API', 'API_PORT');
    const api = runService('api', 'src/api/main.ts', env);
    services.push(api);
    await waitForHttp(`http://127.0.0.1:${config.API_PORT}/health`, api);
    console.log(`API:               http://localhost:${config.API_PORT} (docs: /docs, key: API_KEYS)`);
    console.log(`Codec server:      ${codecEndpoint} (the Web UI decrypts payloads through it)`);
    console.log(`API metrics:       http://localhost:${config.API_PORT}/metrics`);

    // Webhooks (src/webhooks/subscribe-listener.ts): the provider delivers to the API's /webhooks/payments.
    await subscribeListener({ ...config, TEMPORAL_ADDRESS: temporalAddress });

    console.log('The local stack is up. Ctrl-C stops it.');
    supervisor.watch(services);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    await supervisor.stopAll(1);
  }
}

void main();
