import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config';
import { buildIdOf, workerDeploymentOptions } from '../../src/workers/deployment-version';

const bundle = (code: string) => {
  const path = join(mkdtempSync(join(tmpdir(), 'bundle-')), 'workflows.js');
  writeFileSync(path, code);
  return path;
};

describe('the worker as a Worker Deployment version', () => {
  it('is unversioned unless WORKER_VERSIONING is on', () => {
    expect(workerDeploymentOptions(loadConfig({}))).toBeUndefined();
    expect(workerDeploymentOptions(loadConfig({ WORKER_VERSIONING: 'false' }))).toBeUndefined();
  });

  it('names the deployment and the build, AUTO_UPGRADE for runs that declare nothing', () => {
    expect(
      workerDeploymentOptions(
        loadConfig({
          WORKER_VERSIONING: '1',
          TEMPORAL_DEPLOYMENT_NAME: 'payments',
          TEMPORAL_BUILD_ID: 'b-7',
        }),
      ),
    ).toEqual({
      useWorkerVersioning: true,
      version: { deploymentName: 'payments', buildId: 'b-7' },
      defaultVersioningBehavior: 'AUTO_UPGRADE',
    });
    expect(
      workerDeploymentOptions(loadConfig({ WORKER_VERSIONING: 'true', TEMPORAL_BUILD_ID: 'x' })),
    ).toMatchObject({ version: { deploymentName: 'payments-worker', buildId: 'x' } });
  });

  it('derives the build id from the bundle: the same code the same id, changed code another', () => {
    const first = buildIdOf(loadConfig({ WORKFLOW_BUNDLE_PATH: bundle('code v1') }));
    expect(first).toMatch(/^[0-9a-f]{12}$/);
    expect(buildIdOf(loadConfig({ WORKFLOW_BUNDLE_PATH: bundle('code v1') }))).toBe(first);
    expect(buildIdOf(loadConfig({ WORKFLOW_BUNDLE_PATH: bundle('code v2') }))).not.toBe(first);
    // An explicit build id wins over the bundle's.
    expect(
      buildIdOf(loadConfig({ WORKFLOW_BUNDLE_PATH: bundle('code v1'), TEMPORAL_BUILD_ID: 'rc-1' })),
    ).toBe('rc-1');
  });

  it('takes the git commit without a bundle', () => {
    expect(buildIdOf(loadConfig({}))).toMatch(/^[0-9a-f]{12}$/);
  });

  it('refuses a deployment name or build id the version string cannot hold', () => {
    expect(() => loadConfig({ TEMPORAL_DEPLOYMENT_NAME: 'payments.worker' })).toThrow(ConfigError);
    expect(() => loadConfig({ TEMPORAL_BUILD_ID: 'v 2' })).toThrow(/TEMPORAL_BUILD_ID/);
  });
});
