import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadConfig } from '../config';
import { temporalTarget } from '../temporal-env';
import { resolveTemporalCli } from './temporal-cli';

/**
 * Saves one workflow's event history from a running stack as JSON:
 *   npm run history:record -- <workflowId> <file.json>
 * The replay suite's set is recorded by `npm run histories:record` (test/histories/record/). The Temporal CLI
 * writes the history in the JSON form the SDK's replayer reads.
 */
async function main() {
  const [workflowId, file] = process.argv.slice(2);
  if (!workflowId || !file) throw new Error('usage: npm run history:record -- <workflowId> <file.json>');
  const config = loadConfig();
  const cli = await resolveTemporalCli();
  // The CLI reads the same profile for TLS and the API key; address and namespace are named in case the
  // default (the local dev server) applies.
  const temporal = temporalTarget(config);
  const shown = spawnSync(
    cli.path,
    [
      'workflow',
      'show',
      '--workflow-id',
      workflowId,
      '--address',
      temporal.connection.address,
      '--namespace',
      temporal.namespace,
      '--output',
      'json',
    ],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  if (shown.status !== 0) throw new Error(`temporal workflow show failed: ${shown.stderr}`);
  const history = JSON.parse(shown.stdout) as { events?: unknown[] };
  writeFileSync(file, `${JSON.stringify(history, null, 2)}\n`);
  console.log(`Saved ${history.events?.length ?? 0} events of ${workflowId} to ${file}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
