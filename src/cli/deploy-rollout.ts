import { parseArgs } from 'node:util';
import { Connection } from '@temporalio/client';
import ms, { type StringValue } from 'ms';
import { loadConfig } from '../config';
import { temporalTarget } from '../temporal-env';
import { rollOut } from '../workers/rollout';
import { WorkerDeployment } from '../workers/worker-deployment';

const usage = `npm run deploy:rollout -- --build-id <id> [--deployment <name>] [--ramp 10,50] [--step 1m]
  [--pollers-timeout 5m] [--drain-timeout 30m]`;

function duration(name: string, value: string): number {
  const parsed = ms(value as StringValue);
  if (typeof parsed !== 'number' || !Number.isFinite(parsed) || parsed < 0) {
    throw new Error(`--${name}: ${value} is not a duration (e.g. 90s, 5m)\n${usage}`);
  }
  return parsed;
}

function rampSteps(value: string): number[] {
  const steps = value === '' ? [] : value.split(',').map(Number);
  if (steps.some((step) => !Number.isInteger(step) || step <= 0 || step >= 100)) {
    throw new Error(`--ramp: ${value} is not a list of per cents between 1 and 99 (e.g. 10,50)\n${usage}`);
  }
  return steps;
}

/**
 * `npm run deploy:rollout`: rolls a new version of the worker's Worker Deployment out (docs/deploying.md):
 * waits for its workers, ramps it, makes it current, waits until the old version is drained. It reaches
 * Temporal as the service does (TEMPORAL_ADDRESS, TEMPORAL_PROFILE, …); the deployment defaults to
 * TEMPORAL_DEPLOYMENT_NAME, the task queue to TEMPORAL_TASK_QUEUE.
 */
async function main() {
  const { values } = parseArgs({
    options: {
      'build-id': { type: 'string' },
      deployment: { type: 'string' },
      ramp: { type: 'string', default: '10,50' },
      step: { type: 'string', default: '1m' },
      'pollers-timeout': { type: 'string', default: '5m' },
      'drain-timeout': { type: 'string', default: '30m' },
    },
  });
  const buildId = values['build-id'];
  if (!buildId) throw new Error(`--build-id is required\n${usage}`);
  const options = {
    buildId,
    rampSteps: rampSteps(values.ramp),
    stepMs: duration('step', values.step),
    pollersTimeoutMs: duration('pollers-timeout', values['pollers-timeout']),
    drainTimeoutMs: duration('drain-timeout', values['drain-timeout']),
  };
  const config = loadConfig(process.env);
  const temporal = temporalTarget(config);
  const connection = await Connection.connect(temporal.connection);
  try {
    const deployment = new WorkerDeployment(
      connection,
      temporal.namespace,
      values.deployment ?? config.TEMPORAL_DEPLOYMENT_NAME,
    );
    const result = await rollOut(deployment, { ...options, taskQueues: [config.TEMPORAL_TASK_QUEUE] });
    // Asked to wait for the drain, and it did not come: the old workers must keep running.
    if (!result.drained && options.drainTimeoutMs > 0) process.exitCode = 2;
  } finally {
    await connection.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
