import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withReference } from '../config/reference';

export const CONFIGURATION_PAGE = join(__dirname, '..', '..', 'docs', 'configuration.md');

/** Markdown as `npm run format` writes it (prettier's own CLI: its API loads modules jest cannot). */
function formatted(markdown: string): string {
  const prettier = spawnSync(
    process.execPath,
    [require.resolve('prettier/bin/prettier.cjs'), '--stdin-filepath', CONFIGURATION_PAGE],
    { input: markdown, encoding: 'utf8' },
  );
  if (prettier.status !== 0) throw new Error(`prettier failed: ${prettier.stderr}`);
  return prettier.stdout;
}

/** docs/configuration.md as the schemas write it. */
export function generatedConfigurationPage(page: string): string {
  return formatted(withReference(page));
}

/** `npm run config:docs`: rewrites the reference tables of docs/configuration.md from the schemas. */
function main() {
  const page = readFileSync(CONFIGURATION_PAGE, 'utf8');
  const generated = generatedConfigurationPage(page);
  writeFileSync(CONFIGURATION_PAGE, generated);
  console.log(generated === page ? 'docs/configuration.md is up to date' : 'docs/configuration.md written');
}

if (require.main === module) main();
