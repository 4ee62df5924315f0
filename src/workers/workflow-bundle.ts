import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { FAILURE_CONVERTER_PATH } from '../codec/data-converter';

/**
 * Bundles the workflow code once, ahead of the worker. A worker that loads a prebuilt bundle skips webpack
 * at start-up and stays about 100 MB smaller (`npm run workflow:bundle`, src/cli/build-workflow-bundle.ts).
 */
export async function writeWorkflowBundle(
  path: string,
  workflowsPath = require.resolve('../workflows'),
  /** Workflow interceptor modules bundled with the code (a test's changed version, e.g.). */
  interceptorModules: string[] = [],
): Promise<void> {
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: interceptorModules,
    // Workflow failures encode their messages like the rest of the service (src/codec/failure-converter.ts).
    failureConverterPath: FAILURE_CONVERTER_PATH,
    logger: { trace() {}, debug() {}, info() {}, log() {}, warn: console.warn, error: console.error },
  });
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, code);
}
