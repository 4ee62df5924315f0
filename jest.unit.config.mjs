// `npm run test:unit`: the suites in test/unit, which need no Temporal server (nor the workflow bundle), so no
// global setup. They still use real HTTP, the sandbox, PGlite and the PostgreSQL on 127.0.0.1:5432.
import config from './jest.config.js';

const { globalSetup: _setup, globalTeardown: _teardown, ...base } = config;

/** @type {import('jest').Config} */
export default { ...base, roots: ['<rootDir>/test/unit'] };
