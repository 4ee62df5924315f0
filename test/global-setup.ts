import type { DevServer } from '../src/dev/dev-server';
import { startTestTemporal } from './helpers/test-temporal';

declare global {
  var temporalDevServer: DevServer | undefined;
}

/** One real Temporal dev server and one workflow bundle for the whole run; tests reach both through env. */
export default async function globalSetup(): Promise<void> {
  const { server, cli, bundledInMs } = await startTestTemporal();
  globalThis.temporalDevServer = server;
  console.log(`\nTemporal dev server (${cli.source}: ${cli.path}) serving at ${server.address}`);
  console.log(`Workflow code bundled once in ${bundledInMs} ms`);
}
