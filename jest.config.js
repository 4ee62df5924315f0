/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }],
    // Jest on Node 20 cannot load ES modules, nor run `import()` without --experimental-vm-modules:
    // content-disposition 3 (under @fastify/static, used by mercurius and @fastify/swagger-ui) is ESM, and
    // PGlite's CommonJS build imports Node built-ins with `import()`. swc rewrites both to `require`.
    '/node_modules/(content-disposition|@electric-sql/pglite)/.+\\.c?js$': [
      '@swc/jest',
      { jsc: { target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!(content-disposition|@electric-sql/pglite)/)'],
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 60_000,
  // Two cores: one dev server, one worker per test file, two files at a time.
  maxWorkers: 2,
  verbose: true,
};
