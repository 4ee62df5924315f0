import { writeFileSync } from 'node:fs';
import type { WorkflowHandle } from '@temporalio/client';
import { historyToJson } from '../../helpers/history-json';

/**
 * Writes the run's history as `temporal workflow show --output json` does, the form the replay suite reads;
 * payloads stay as the server stores them (encrypted with the test key). Answers its number of events.
 */
export async function writeHistory(run: WorkflowHandle, file: string): Promise<number> {
  const history = await run.fetchHistory();
  writeFileSync(file, `${historyToJson(history)}\n`);
  return history.events?.length ?? 0;
}
