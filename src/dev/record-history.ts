import { writeFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { loadConfig, temporalAddress } from '../config';

/**
 * Saves a workflow's event history as JSON for the replay suite:
 *   npm run history:record -- <workflowId> test/histories/<name>.json
 * Replaying it on every `npm test` catches a change that would break determinism for runs already in flight.
 */
async function main() {
  const [workflowId, file] = process.argv.slice(2);
  if (!workflowId || !file) throw new Error('usage: npm run history:record -- <workflowId> <file.json>');
  const config = loadConfig();
  const connection = await Connection.connect({
    address: temporalAddress(config),
  });
  try {
    const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    writeFileSync(file, historyToJSON(history));
    console.log(`Saved ${history.events?.length ?? 0} events of ${workflowId} to ${file}`);
  } finally {
    await connection.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
