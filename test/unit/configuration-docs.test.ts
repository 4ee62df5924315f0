import { readFileSync } from 'node:fs';
import { CONFIGURATION_PAGE, generatedConfigurationPage } from '../../src/cli/write-configuration-docs';
import { settingsPieces } from '../../src/config/programs';

describe('docs/configuration.md', () => {
  it('holds the reference the schemas generate (npm run config:docs writes it)', () => {
    const page = readFileSync(CONFIGURATION_PAGE, 'utf8');
    expect(generatedConfigurationPage(page)).toBe(page);
  });

  it('defines each variable in one piece only', () => {
    const names = settingsPieces.flatMap((piece) => Object.keys(piece.shape));
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
  });
});
