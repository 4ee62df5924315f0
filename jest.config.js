/**
 * `npm test`: test/unit (no Temporal server), test/integration (a Temporal dev server, workers in-process) and
 * test/e2e (the service's own processes, and a browser), test/model (the money model, a bounded number of runs:
 * `npm run test:model` runs more). The global setup starts the dev server.
 */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test/unit', '<rootDir>/test/integration', '<rootDir>/test/e2e', '<rootDir>/test/model'],
  testMatch: ['**/*.test.ts'],
  // test/cluster starts its own Temporal cluster: `npm run test:cluster` (jest.cluster.config.js).
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }],
    // Jest on Node 20 cannot load ES modules, nor run `import()` without --experimental-vm-modules
    // (plain Node 20 can). quick-lru and jose are ESM; mercurius loads quick-lru with `import()`, and PGlite's CommonJS build
    // loads Node built-ins that way. swc rewrites both into `require` for these packages only.
    '/node_modules/(quick-lru|mercurius|@electric-sql/pglite|jose)/.+\\.c?js$': [
      '@swc/jest',
      { jsc: { target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!(quick-lru|mercurius|@electric-sql/pglite|jose)/)'],
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 60_000,
  testSequencer: '<rootDir>/test/slow-files-first.js',
  // Three files at a time on two cores: a file waits on its timers, its provider and the dev server for much of
  // its time (two at a time left the cores a fifth idle; docs/testing.md).
  maxWorkers: 3,
  verbose: true,
};
