import type { WorkerDeploymentVersion } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

const { VersionDrainageStatus } = temporal.api.enums.v1;

/** The routing of a Worker Deployment: where new and auto-upgrading workflow tasks go. */
export interface DeploymentRouting {
  /** The current version's build id; none while the unversioned workers are current. */
  currentBuildId?: string;
  rampingBuildId?: string;
  rampingPercentage: number;
  conflictToken?: Uint8Array;
}

export type DrainageStatus = 'none' | 'draining' | 'drained';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A Worker Deployment's routing through the frontend's Worker Deployment API: each call names the deployment
 * and the build id, as `temporal worker deployment …` does.
 */
export class WorkerDeployment {
  constructor(
    // A client Connection or the worker's NativeConnection: both reach the frontend's workflow service.
    private readonly connection: { workflowService: temporal.api.workflowservice.v1.WorkflowService },
    readonly namespace: string,
    readonly deploymentName: string,
    private readonly identity = 'deploy-rollout',
  ) {}

  private get service() {
    return this.connection.workflowService;
  }

  /** The routing now; none while no worker of the deployment has polled yet. */
  async routing(): Promise<DeploymentRouting | undefined> {
    try {
      const { workerDeploymentInfo, conflictToken } = await this.service.describeWorkerDeployment({
        namespace: this.namespace,
        deploymentName: this.deploymentName,
      });
      const routing = workerDeploymentInfo?.routingConfig;
      return {
        currentBuildId: routing?.currentDeploymentVersion?.buildId || undefined,
        rampingBuildId: routing?.rampingDeploymentVersion?.buildId || undefined,
        rampingPercentage: routing?.rampingVersionPercentage ?? 0,
        conflictToken: conflictToken ?? undefined,
      };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** The task queues a version's workers have polled; none while no worker of it has polled. */
  async polledTaskQueues(buildId: string): Promise<string[]> {
    try {
      const { workerDeploymentVersionInfo } = await this.service.describeWorkerDeploymentVersion({
        namespace: this.namespace,
        deploymentVersion: { deploymentName: this.deploymentName, buildId },
      });
      return (workerDeploymentVersionInfo?.taskQueueInfos ?? []).map((queue) => queue.name ?? '');
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
  }

  /** Whether workflows still run on a version that is neither current nor ramping (its pinned ones). */
  async drainage(buildId: string): Promise<DrainageStatus> {
    const { workerDeploymentVersionInfo } = await this.service.describeWorkerDeploymentVersion({
      namespace: this.namespace,
      deploymentVersion: { deploymentName: this.deploymentName, buildId },
    });
    switch (workerDeploymentVersionInfo?.drainageInfo?.status) {
      case VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINING:
        return 'draining';
      case VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINED:
        return 'drained';
      default:
        return 'none';
    }
  }

  /** Sends `percentage` % of new and auto-upgrading workflows to the version (0 stops the ramp). */
  async ramp(buildId: string, percentage: number, conflictToken?: Uint8Array): Promise<void> {
    await this.service.setWorkerDeploymentRampingVersion({
      namespace: this.namespace,
      deploymentName: this.deploymentName,
      buildId,
      percentage,
      identity: this.identity,
      ...(conflictToken && { conflictToken }),
    });
  }

  /** Makes the version current: every new and auto-upgrading workflow task goes to it. */
  async makeCurrent(buildId: string, conflictToken?: Uint8Array): Promise<void> {
    await this.service.setWorkerDeploymentCurrentVersion({
      namespace: this.namespace,
      deploymentName: this.deploymentName,
      buildId,
      identity: this.identity,
      ...(conflictToken && { conflictToken }),
    });
  }
}

/** gRPC NOT_FOUND (5). */
function isNotFound(error: unknown): boolean {
  return (error as { code?: number }).code === 5;
}

/**
 * A worker's first deploy: while its deployment has no current version yet, its own version becomes current
 * (a deployment with a current version changes only through `npm run deploy:rollout`). It waits for the
 * version to be registered, which happens when its first poll reaches the server, and keeps trying until the
 * deployment has a current version or `signal` aborts, telling `waiting` why every `reportEveryMs`.
 */
export async function makeCurrentIfFirst(
  deployment: WorkerDeployment,
  version: WorkerDeploymentVersion,
  options: {
    signal?: AbortSignal;
    log?: (line: string) => void;
    waiting?: (why: string) => void;
    reportEveryMs?: number;
  } = {},
): Promise<void> {
  const reportEvery = options.reportEveryMs ?? 30_000;
  let reportAt = Date.now() + reportEvery;
  let why = 'the version has not polled yet';
  while (!options.signal?.aborted) {
    try {
      const routing = await deployment.routing();
      if (routing?.currentBuildId) return;
      if (routing && (await deployment.polledTaskQueues(version.buildId)).length > 0) {
        // The conflict token loses the race to another worker of the same first deploy, harmlessly.
        await deployment.makeCurrent(version.buildId, routing.conflictToken);
        options.log?.(
          `${version.deploymentName}.${version.buildId} is the deployment's first current version`,
        );
        return;
      }
    } catch (error) {
      why = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() >= reportAt) {
      options.waiting?.(why);
      reportAt = Date.now() + reportEvery;
    }
    await sleep(500);
  }
}
