import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { testDataConverter } from '../helpers/temporal';

const historiesDir = join(__dirname, '..', 'histories');
const histories = readdirSync(historiesDir).filter((file) => file.endsWith('.json'));

/**
 * Every saved history must replay on today's workflow code: a non-deterministic change fails here. Replay decodes
 * with the payload codec: histories recorded before encryption hold plain payloads, which decode as they are.
 */
describe('replay of recorded histories', () => {
  it('has histories to replay', () => {
    expect(histories.length).toBeGreaterThan(0);
  });

  it.each(histories)('%s replays without non-determinism', async (file) => {
    const codePath = process.env.TEST_WORKFLOW_BUNDLE as string;
    const history: unknown = JSON.parse(readFileSync(join(historiesDir, file), 'utf8'));
    const results = Worker.runReplayHistories(
      { workflowBundle: { codePath }, dataConverter: testDataConverter },
      [{ workflowId: file.replace(/\.json$/, ''), history }],
    );
    const replayed: string[] = [];
    for await (const result of results) {
      expect(result.error).toBeUndefined();
      replayed.push(result.workflowId);
    }
    // An empty iteration would pass the loop above without replaying anything.
    expect(replayed).toEqual([file.replace(/\.json$/, '')]);
  });
});
