import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

/**
 * Bundles the workflow code once, ahead of the worker. A worker that loads a prebuilt bundle skips webpack
 * at start-up and stays about 100 MB smaller (`npm run workflow:bundle`, src/cli/build-workflow-bundle.ts).
 */
export async function writeWorkflowBundle(
  path: string,
  workflowsPath = require.resolve('../workflows'),
): Promise<void> {
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    logger: { trace() {}, debug() {}, info() {}, log() {}, warn: console.warn, error: console.error },
  });
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, code);
}
