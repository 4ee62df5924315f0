import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../src/dev/dev-server';
import { findFreePort } from '../src/dev/ports';
import { resolveTemporalCli } from '../src/dev/temporal-cli';
import { writeWorkflowBundle } from '../src/workers/workflow-bundle';

declare global {
  var temporalDevServer: DevServer | undefined;
}

/** One real Temporal dev server and one workflow bundle for the whole run; tests reach both through env. */
export default async function globalSetup(): Promise<void> {
  const cli = await resolveTemporalCli();
  const server = await startDevServer({
    cliPath: cli.path,
    port: await findFreePort(),
    namespace: 'default',
    moreNamespaces: ['orders'],
  });
  globalThis.temporalDevServer = server;
  process.env.TEMPORAL_ADDRESS = server.address;
  console.log(`\nTemporal dev server (${cli.source}: ${cli.path}) serving at ${server.address}`);

  const started = Date.now();
  const bundlePath = join(mkdtempSync(join(tmpdir(), 'workflow-bundle-')), 'workflows.js');
  await writeWorkflowBundle(bundlePath, require.resolve('./fixtures/workflows'));
  process.env.TEST_WORKFLOW_BUNDLE = bundlePath;
  console.log(`Workflow code bundled once in ${Date.now() - started} ms`);
}
