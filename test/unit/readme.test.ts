import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configVariableNames } from '../../src/config';

const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');

describe('README.md', () => {
  it('keeps the two Quickstart commands', () => {
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test');
  });

  it('documents every configuration variable the service reads', () => {
    const tableRows = readme.split('\n').filter((line) => line.startsWith('|'));
    const undocumented = configVariableNames.filter(
      (name) => !tableRows.some((row) => row.includes(`\`${name}\``)),
    );
    expect(undocumented).toEqual([]);
  });
});
