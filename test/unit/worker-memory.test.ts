import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config';
import { WORKER_V8_FLAGS } from '../../src/workers/v8-limits';

// The worker's memory is bounded by its workflow cache and its V8 heap limits, which must agree: the SDK sizes
// its default cache as floor((heap MB - 200) * 600 / 1024) workflows (reusing one V8 context), so the heap
// given must hold the default cache. Pure: no Temporal server.

const oldSpaceMb = Number(/--max-old-space-size=(\d+)/.exec(WORKER_V8_FLAGS.join(' '))?.[1]);

it('gives the worker a heap the SDK sizes the default workflow cache for', () => {
  const cached = loadConfig({}).WORKER_MAX_CACHED_WORKFLOWS;
  expect(Math.floor(((oldSpaceMb - 200) * 600) / 1024)).toBeGreaterThanOrEqual(cached);
});

it('starts the compose workers with the same heap limits as `npm run cluster`', () => {
  const compose = parse(readFileSync(join(__dirname, '..', '..', 'docker-compose.yml'), 'utf8')) as {
    services: Record<string, { command?: string[] }>;
  };
  for (const name of ['worker-1', 'worker-2'])
    expect(compose.services[name]?.command).toEqual(expect.arrayContaining(WORKER_V8_FLAGS));
});

it('starts the image default command, the worker, with the same heap limits', () => {
  const dockerfile = readFileSync(join(__dirname, '..', '..', 'Dockerfile'), 'utf8');
  const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
  expect(cmd).toBeDefined();
  const command = JSON.parse(cmd as string) as string[];
  expect(command).toEqual(['node', ...WORKER_V8_FLAGS, 'dist/workers/main.js']);
});
