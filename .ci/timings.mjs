// The end of `.ci/run`: each step's time and the slowest test files, slowest first, and each suite's totals.
// Usage: node .ci/timings.mjs <dir>, where <dir> holds steps.tsv (seconds<TAB>step, one line per step) and one
// jest --json output per suite, named <suite>.json.
import fs from 'node:fs';
import path from 'node:path';
import { argv, cwd, stdout } from 'node:process';

const SLOWEST_FILES = 15;
const dir = argv[2];
if (!dir) throw new Error('usage: node .ci/timings.mjs <dir>');

const print = (line) => stdout.write(`${line}\n`);

const clock = (seconds) => {
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};
/** Prints rows as columns: `align` has one letter per column, l (left) or r (right). */
const table = (align, rows) => {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const cell = (text, column) =>
    align[column] === 'r' ? text.padStart(widths[column]) : text.padEnd(widths[column]);
  for (const row of rows) print(`  ${row.map(cell).join('  ')}`.trimEnd());
};

const stepsFile = path.join(dir, 'steps.tsv');
const steps = fs.existsSync(stepsFile)
  ? fs
      .readFileSync(stepsFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [seconds, ...name] = line.split('\t');
        return { name: name.join('\t'), seconds: Number(seconds) };
      })
  : [];
const total = steps.reduce((sum, step) => sum + step.seconds, 0);
print('CI steps, slowest first');
table('lr', [
  ['step', 'time'],
  ...steps.toSorted((a, b) => b.seconds - a.seconds).map((step) => [step.name, clock(step.seconds)]),
  ['total', clock(total)],
]);

const suites = fs
  .readdirSync(dir)
  .filter((file) => file.endsWith('.json'))
  .map((file) => {
    const name = file.slice(0, -'.json'.length);
    try {
      return { name, results: JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) };
    } catch {
      return { name, results: undefined };
    }
  });
const files = suites.flatMap(({ name, results }) =>
  (results?.testResults ?? []).map((file) => ({
    suite: name,
    file: path.relative(cwd(), file.name),
    seconds: (file.endTime - file.startTime) / 1000,
    status: file.status,
  })),
);
print(`\nTest files, slowest first (${Math.min(SLOWEST_FILES, files.length)} of ${files.length})`);
table('llrl', [
  ['file', 'suite', 'time', 'status'],
  ...files
    .toSorted((a, b) => b.seconds - a.seconds)
    .slice(0, SLOWEST_FILES)
    .map((file) => [file.file, file.suite, clock(file.seconds), file.status]),
]);

const suiteSeconds = (results) =>
  (Math.max(results.startTime, ...results.testResults.map((file) => file.endTime)) - results.startTime) /
  1000;
print('\nJest suites, slowest first');
table('lrrrrr', [
  ['suite', 'time', 'passed', 'failed', 'skipped', 'files failed'],
  ...suites
    .map(({ name, results }) => ({ name, results, seconds: results ? suiteSeconds(results) : 0 }))
    .toSorted((a, b) => b.seconds - a.seconds)
    .map(({ name, results, seconds }) =>
      results
        ? [
            name,
            clock(seconds),
            String(results.numPassedTests),
            String(results.numFailedTests),
            String(results.numPendingTests),
            String(results.numFailedTestSuites),
          ]
        : [name, 'no results', '', '', '', ''],
    ),
]);
