import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DefaultLogger, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { writeHistory } from './history-file';
import { startRecordingStack } from './recording-stack';
import { scenarios } from './scenarios';

const HISTORIES_DIR = join(__dirname, '..');

/**
 * `npm run histories:record [-- <name> ...]`: drives every scenario (or those named) on today's workflow code
 * and writes test/histories/<name>.json, on a Temporal dev server, sandbox, API and worker of its own. Run it
 * after a change the recorded histories no longer replay on (a release that drops patches), then replay them.
 */
async function main() {
  const names = process.argv.slice(2);
  const unknown = names.filter((name) => !scenarios.some((scenario) => scenario.name === name));
  if (unknown.length > 0) throw new Error(`no scenario named ${unknown.join(', ')}`);
  const chosen = names.length > 0 ? scenarios.filter(({ name }) => names.includes(name)) : scenarios;

  // The scenarios' own lines, not the workers' state changes.
  Runtime.install({
    logger: new DefaultLogger('WARN'),
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }) } },
  });
  const stack = await startRecordingStack();
  const failed: string[] = [];
  try {
    for (const scenario of chosen) {
      const started = Date.now();
      try {
        const run = await scenario.drive(stack);
        const events = await writeHistory(run, join(HISTORIES_DIR, `${scenario.name}.json`));
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        console.log(`${scenario.name}: ${events} events (${seconds} s): ${scenario.shows}`);
      } catch (error) {
        failed.push(scenario.name);
        console.error(`${scenario.name}: not recorded:`, error);
      }
    }
  } finally {
    await stack.close();
  }

  const recordedByNone = readdirSync(HISTORIES_DIR).filter(
    (file) => file.endsWith('.json') && !scenarios.some(({ name }) => file === `${name}.json`),
  );
  for (const file of recordedByNone) console.warn(`test/histories/${file}: no scenario records it`);
  if (failed.length > 0) throw new Error(`not recorded: ${failed.join(', ')}`);
}

main()
  .then(() => process.exit(0))
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
