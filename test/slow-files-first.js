// eslint-disable-next-line @typescript-eslint/no-require-imports
const { relative } = require('node:path');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Sequencer = require('@jest/test-sequencer').default;

/**
 * Seconds each of `npm test`'s slowest files took in CI (2026-12-05, 2 cores). Jest orders files by the
 * durations it cached from earlier runs of the same paths, and by file size without them, as in a fresh clone:
 * there the slowest file started last and ran alone for its last 44 s. These files start first, slowest
 * first; the others follow in Jest's order.
 */
const SLOW_FILES = {
  'test/integration/lifecycle-busy.test.ts': 118,
  'test/model/money-model.test.ts': 52,
  'test/e2e/lifecycle-worker-crash.test.ts': 50,
  'test/integration/lifecycle-api.test.ts': 50,
  'test/integration/lifecycle-idempotency.test.ts': 40,
  'test/integration/stripe-key-retention.test.ts': 38,
  'test/e2e/operators-ui.test.ts': 33,
};

class SlowFilesFirst extends Sequencer {
  sort(tests) {
    const seconds = (test) => SLOW_FILES[relative(test.context.config.rootDir, test.path)] ?? 0;
    // A stable sort: the files not listed keep Jest's order.
    return [...super.sort(tests)].sort((a, b) => seconds(b) - seconds(a));
  }
}

module.exports = SlowFilesFirst;
