import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { WorkerDeploymentOptions } from '@temporalio/worker';
import { ConfigError, type Config } from '../config';

export type DeploymentConfig = Pick<
  Config,
  'WORKER_VERSIONING' | 'TEMPORAL_DEPLOYMENT_NAME' | 'TEMPORAL_BUILD_ID' | 'WORKFLOW_BUNDLE_PATH'
>;

export const workerVersioningOn = (config: Pick<Config, 'WORKER_VERSIONING'>) =>
  config.WORKER_VERSIONING === '1' || config.WORKER_VERSIONING === 'true';

/** The first 12 hex digits of the bundle's SHA-256: the same code, the same build id. */
export function bundleBuildId(bundlePath: string): string {
  return createHash('sha256').update(readFileSync(bundlePath)).digest('hex').slice(0, 12);
}

function gitCommit(): string | undefined {
  const result = spawnSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() || undefined : undefined;
}

/**
 * The build id of this worker's code: TEMPORAL_BUILD_ID, else the prebuilt workflow bundle's content hash,
 * else the git commit. A worker that bundles at start from a working tree with uncommitted changes should be
 * given TEMPORAL_BUILD_ID, as the commit does not name its code.
 */
export function buildIdOf(config: DeploymentConfig): string {
  const buildId =
    config.TEMPORAL_BUILD_ID ??
    (config.WORKFLOW_BUNDLE_PATH ? bundleBuildId(config.WORKFLOW_BUNDLE_PATH) : gitCommit());
  if (!buildId) {
    throw new ConfigError(
      'Invalid configuration:\n  TEMPORAL_BUILD_ID: required with WORKER_VERSIONING when there is neither ' +
        'WORKFLOW_BUNDLE_PATH nor a git commit to derive it from',
    );
  }
  return buildId;
}

/**
 * The worker's Worker Deployment version, with WORKER_VERSIONING on. Workflow types declare their own
 * versioning behaviour (src/workflows/index.ts). AUTO_UPGRADE is the default for a run that declares none: one
 * whose first task was unversioned, met when versioning is turned on under running lifecycles; pinned, each
 * would hold the first version it met for days.
 */
export function workerDeploymentOptions(config: DeploymentConfig): WorkerDeploymentOptions | undefined {
  if (!workerVersioningOn(config)) return undefined;
  return {
    useWorkerVersioning: true,
    version: { deploymentName: config.TEMPORAL_DEPLOYMENT_NAME, buildId: buildIdOf(config) },
    defaultVersioningBehavior: 'AUTO_UPGRADE',
  };
}
