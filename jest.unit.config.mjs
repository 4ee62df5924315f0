// `npm run test:unit`: the suites that need no Temporal server (nor the workflow bundle), so no global setup.
// They still use real HTTP, the sandbox, PGlite and the PostgreSQL on 127.0.0.1:5432.
import config from './jest.config.js';

const { globalSetup: _setup, globalTeardown: _teardown, ...base } = config;

/** @type {import('jest').Config} */
export default {
  ...base,
  testMatch: [
    '<rootDir>/test/business-metrics.test.ts',
    '<rootDir>/test/characters-abuse-limits.test.ts',
    '<rootDir>/test/characters-activities.test.ts',
    '<rootDir>/test/characters-graphql-over-http.test.ts',
    '<rootDir>/test/characters-http-edges.test.ts',
    '<rootDir>/test/characters-query-limits.test.ts',
    '<rootDir>/test/characters-server.test.ts',
    '<rootDir>/test/characters-store.test.ts',
    '<rootDir>/test/cluster-server-config.test.ts',
    '<rootDir>/test/config.test.ts',
    '<rootDir>/test/dependencies.test.ts',
    '<rootDir>/test/docker-compose.test.ts',
    '<rootDir>/test/grafana-dashboard.test.ts',
    '<rootDir>/test/history-encryption.test.ts',
    '<rootDir>/test/lifecycle-details.test.ts',
    '<rootDir>/test/lifecycle-refund-events.test.ts',
    '<rootDir>/test/lifecycle-state.test.ts',
    '<rootDir>/test/payload-codec.test.ts',
    '<rootDir>/test/payments-activities.test.ts',
    '<rootDir>/test/payments-client*.test.ts',
    '<rootDir>/test/paypal-contract.test.ts',
    '<rootDir>/test/paypal-sdk.test.ts',
    '<rootDir>/test/readme.test.ts',
    '<rootDir>/test/sandbox-*.test.ts',
    '<rootDir>/test/temporal-cli.test.ts',
    '<rootDir>/test/webhook-certificates.test.ts',
    '<rootDir>/test/worker-memory.test.ts',
  ],
};
