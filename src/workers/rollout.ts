import type { WorkerDeployment } from './worker-deployment';

export interface RolloutOptions {
  /** The new version's build id. */
  buildId: string;
  /** The task queues the new version's workers must have polled before it gets any traffic. */
  taskQueues: string[];
  /** The ramp's steps, in per cent of new and auto-upgrading workflow tasks, e.g. [10, 50]. */
  rampSteps: number[];
  /** How long each ramp step holds before the next. */
  stepMs: number;
  /** How long to wait for the new version's pollers. */
  pollersTimeoutMs: number;
  /** How long to wait for the old version to drain; 0 means not at all. */
  drainTimeoutMs: number;
  /** How often to look again. */
  pollIntervalMs?: number;
  progress?: (line: string) => void;
}

export interface RolloutResult {
  /** The version that was current before; none on a deployment's first rollout. */
  previousBuildId?: string;
  /** The old version drained within drainTimeoutMs. */
  drained: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(
  look: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs: number,
): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await look();
    if (found !== undefined || Date.now() >= deadline) return found;
    await sleep(intervalMs);
  }
}

/**
 * A rolling deploy of a Worker Deployment: waits until the new version's workers poll every task queue,
 * ramps it step by step, makes it current, then waits until the old version is drained (no pinned workflow
 * open on it), when its workers may stop. Auto-upgrading workflows (the lifecycles) move at their next task.
 */
export async function rollOut(deployment: WorkerDeployment, options: RolloutOptions): Promise<RolloutResult> {
  const progress = options.progress ?? console.log;
  const interval = options.pollIntervalMs ?? 2_000;
  const version = `${deployment.deploymentName}.${options.buildId}`;

  progress(`Waiting for ${version}'s workers to poll ${options.taskQueues.join(', ')}…`);
  const polled = await until(
    async () => {
      const queues = await deployment.polledTaskQueues(options.buildId);
      return options.taskQueues.every((queue) => queues.includes(queue)) ? queues : undefined;
    },
    options.pollersTimeoutMs,
    interval,
  );
  if (!polled) {
    throw new Error(
      `${version} has no workers polling ${options.taskQueues.join(', ')} after ` +
        `${options.pollersTimeoutMs / 1000} s: start them first`,
    );
  }
  // One entry per task queue type (workflow, activity, Nexus).
  progress(`${version} polls ${[...new Set(polled)].join(', ')}`);

  const before = await deployment.routing();
  const previousBuildId = before?.currentBuildId;
  if (previousBuildId === options.buildId) {
    progress(`${version} is already current`);
    return { previousBuildId, drained: true };
  }
  if (!previousBuildId) {
    await deployment.makeCurrent(options.buildId, before?.conflictToken);
    progress(`${version} is current (the deployment's first version: nothing to ramp or drain)`);
    return { drained: true };
  }

  for (const percentage of options.rampSteps) {
    await deployment.ramp(options.buildId, percentage);
    progress(`Ramping ${version}: ${percentage} % of new and auto-upgrading workflow tasks`);
    await sleep(options.stepMs);
  }
  await deployment.makeCurrent(options.buildId);
  progress(`${version} is current; ${deployment.deploymentName}.${previousBuildId} drains`);
  if (options.drainTimeoutMs === 0) return { previousBuildId, drained: false };

  let last = '';
  const drained = await until(
    async () => {
      const status = await deployment.drainage(previousBuildId);
      if (status !== last) progress(`${deployment.deploymentName}.${previousBuildId}: ${status}`);
      last = status;
      return status === 'drained' ? true : undefined;
    },
    options.drainTimeoutMs,
    interval,
  );
  progress(
    drained
      ? `${deployment.deploymentName}.${previousBuildId} is drained: its workers may stop`
      : `${deployment.deploymentName}.${previousBuildId} still ${last} after ` +
          `${options.drainTimeoutMs / 1000} s: keep its workers running until it drains`,
  );
  return { previousBuildId, drained: Boolean(drained) };
}
