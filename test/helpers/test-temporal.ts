import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/dev/dev-server';
import { findFreePort } from '../../src/dev/ports';
import { resolveTemporalCli, type ResolvedCli } from '../../src/dev/temporal-cli';
import { writeWorkflowBundle } from '../../src/workers/workflow-bundle';

export interface TestTemporal {
  server: DevServer;
  cli: ResolvedCli;
  /** How long bundling the workflows took, in milliseconds. */
  bundledInMs: number;
}

/**
 * A Temporal dev server (namespaces `default` and `orders`) and one bundle of the test workflows, which the
 * helpers reach through TEMPORAL_ADDRESS and TEST_WORKFLOW_BUNDLE: the suites' global setup and the recorder.
 */
export async function startTestTemporal(): Promise<TestTemporal> {
  const cli = await resolveTemporalCli();
  const server = await startDevServer({
    cliPath: cli.path,
    port: await findFreePort(),
    namespace: 'default',
    moreNamespaces: ['orders'],
  });
  process.env.TEMPORAL_ADDRESS = server.address;
  const started = Date.now();
  const bundlePath = join(mkdtempSync(join(tmpdir(), 'workflow-bundle-')), 'workflows.js');
  await writeWorkflowBundle(bundlePath, require.resolve('../fixtures/workflows'));
  process.env.TEST_WORKFLOW_BUNDLE = bundlePath;
  return { server, cli, bundledInMs: Date.now() - started };
}
