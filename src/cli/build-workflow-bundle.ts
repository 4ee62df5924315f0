import { writeWorkflowBundle } from '../workers/workflow-bundle';

/**
 * `npm run workflow:bundle [-- <file>]`: bundles the workflow code ahead of the worker (default
 * dist/workflow-bundle.js), which then loads it through WORKFLOW_BUNDLE_PATH.
 */
async function main() {
  const path = process.argv[2] ?? 'dist/workflow-bundle.js';
  await writeWorkflowBundle(path);
  console.log(`Workflow bundle written to ${path}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
