/**
 * `npm run test:model`: only the money model (test/model), as many runs and steps as MODEL_RUNS and MODEL_STEPS
 * ask (docs/testing.md), on the dev server the global setup starts.
 */
const base = require('./jest.config.js');

/** @type {import('jest').Config} */
module.exports = { ...base, roots: ['<rootDir>/test/model'], maxWorkers: 1 };
