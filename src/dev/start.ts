import { loadConfig } from '../config';
import { runService, waitForLine, type ServiceProcess } from './child-process';
import { startDevServer, type DevServer } from './dev-server';
import { assertPortFree } from './ports';
import { resolveTemporalCli } from './temporal-cli';

/**
 * `npm start`: the whole local stack on the embedded defaults. A Temporal dev server persisted under .data/
 * (unless TEMPORAL_ADDRESS points at one), then the worker. Ctrl-C stops everything.
 */
async function main() {
  const config = loadConfig();
  const services: ServiceProcess[] = [];
  let temporal: DevServer | undefined;
  let stopping = false;

  const stopAll = async (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    console.log('Stopping the local stack…');
    await Promise.all(services.map((service) => service.stop()));
    await temporal?.stop();
    process.exit(exitCode);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  try {
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
        dbFile: config.TEMPORAL_DB_FILE,
      });
      temporalAddress = temporal.address;
      console.log(`Temporal server:   ${temporal.address} (state in ${config.TEMPORAL_DB_FILE})`);
      console.log(`Temporal Web UI:   ${temporal.uiUrl}`);
    }
    const env = { TEMPORAL_ADDRESS: temporalAddress };

    await assertPortFree(config.WORKER_METRICS_PORT, 'the worker metrics', 'WORKER_METRICS_PORT');
    const worker = runService('worker', 'src/workers/main.ts', env);
    services.push(worker);
    await waitForLine(worker, 'worker polling');
    console.log(`Worker:            polling ${config.TEMPORAL_TASK_QUEUE}`);
    console.log(`Worker metrics:    http://localhost:${config.WORKER_METRICS_PORT}/metrics`);

    console.log('The local stack is up. Ctrl-C stops it.');
    for (const service of services) {
      void service.exited.then((code) => {
        if (stopping) return;
        console.error(`${service.name} exited unexpectedly (code ${code}); stopping the stack.`);
        void stopAll(1);
      });
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    await stopAll(1);
  }
}

void main();
