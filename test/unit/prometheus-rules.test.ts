import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promtoolInstalled } from '../helpers/promtool';

// The alert rules in deploy/prometheus: valid, loaded by the configuration, and firing as alerts.test.yml says.
const folder = join(__dirname, '..', '..', 'deploy', 'prometheus');

function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { cwd: folder, encoding: 'utf8' });
  if (run.error) throw run.error;
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('deploy/prometheus alert rules', () => {
  it('are loaded by the configuration', () => {
    expect(readFileSync(join(folder, 'prometheus.yml'), 'utf8')).toMatch(/rule_files:\s*\n\s*- alerts\.yml/);
  });

  (promtoolInstalled ? it : it.skip)('pass promtool check rules', () => {
    const checked = promtool('check', 'rules', 'alerts.yml');
    expect(checked.output).toContain('SUCCESS');
    expect(checked.status).toBe(0);
  });

  (promtoolInstalled ? it : it.skip)(
    'alert on a ledger discrepancy, and only then (promtool test rules)',
    () => {
      const tested = promtool('test', 'rules', 'alerts.test.yml');
      expect(tested.output).toContain('SUCCESS');
      expect(tested.status).toBe(0);
    },
  );
});
