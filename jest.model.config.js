// The same transforms and global setup (the dev server) as `npm test` (jest.config.js).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const base = require('./jest.config');

/**
 * `npm run test:model`: only the money model (test/model), with as many runs and steps as MODEL_RUNS and
 * MODEL_STEPS ask (docs/testing.md). One file, one worker.
 */
/** @type {import('jest').Config} */
module.exports = {
  ...base,
  roots: ['<rootDir>/test/model'],
  maxWorkers: 1,
  // A search cut short by MODEL_TIME_LIMIT_MS may leave a worker draining mid-command: CI must not wait on it.
  forceExit: true,
};
