// The same transforms as `npm test` (jest.config.js); only what the cluster suite needs differs.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const base = require('./jest.config');

/**
 * `npm run test:cluster`: the suites in test/cluster on a real Temporal cluster (src/dev/cluster), which each
 * file starts itself on databases and files of its own; no dev server. Two files at a time: a file spends most of
 * its time waiting (late-event windows, cut links, timers), not computing.
 */
/** @type {import('jest').Config} */
module.exports = {
  ...base,
  roots: ['<rootDir>/test/cluster'],
  globalSetup: undefined,
  globalTeardown: undefined,
  testTimeout: 300_000,
  maxWorkers: 2,
  // A failed start must not leave CI waiting on the cluster's child processes.
  forceExit: true,
};
