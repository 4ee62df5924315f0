import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { writeLifecycleV2Bundle } from '../fixtures/lifecycle-v2/bundle';
import { testDataConverter } from '../helpers/temporal';

const historiesDir = join(__dirname, '..', 'histories');
const histories = readdirSync(historiesDir).filter((file) => file.endsWith('.json'));
let codePath: string;

/**
 * A lifecycle sleeps for days and auto-upgrades to each new version (docs/deploying.md): every history today's
 * code recorded must also replay on the next version. Version 2 here is the rolling-deploy tests' change to the
 * lifecycle (test/fixtures/lifecycle-v2), guarded by patched().
 */
beforeAll(async () => {
  codePath = join(mkdtempSync(join(tmpdir(), 'lifecycle-v2-')), 'workflows.js');
  await writeLifecycleV2Bundle(codePath, require.resolve('../fixtures/workflows'));
}, 120_000);

it('replays every recorded history on version 2 of the lifecycle without non-determinism', async () => {
  const results = Worker.runReplayHistories(
    { workflowBundle: { codePath }, dataConverter: testDataConverter },
    histories.map((file) => ({
      workflowId: file.replace(/\.json$/, ''),
      history: JSON.parse(readFileSync(join(historiesDir, file), 'utf8')) as unknown,
    })),
  );
  const failed: string[] = [];
  const replayed: string[] = [];
  for await (const result of results) {
    replayed.push(result.workflowId);
    if (result.error) failed.push(`${result.workflowId}: ${String(result.error)}`);
  }
  expect(failed).toEqual([]);
  expect(replayed).toHaveLength(histories.length);
});
