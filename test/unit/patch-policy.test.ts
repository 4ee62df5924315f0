import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';

// The patch policy of docs/deploying.md, kept: the patches in the workflows' code are the table's, each at the
// step the table names, each in the compat.ts of an AUTO_UPGRADE workflow.

const root = join(__dirname, '..', '..');
const workflowsDir = join(root, 'src', 'workflows');

type Patch = { workflowFolder: string; id: string; step: 'patched' | 'deprecatePatch'; file: string };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every patched() and deprecatePatch() call in `files`; a patch id that is not a literal is reported as such. */
function patchesIn(files: Array<{ path: string; text: string }>): Patch[] {
  return files.flatMap(({ path, text }) =>
    [...text.matchAll(/\b(patched|deprecatePatch)\(\s*([^)]*)\)/g)].map((call) => {
      const literal = /^(['"`])([^'"`]+)\1$/.exec((call[2] ?? '').trim());
      return {
        workflowFolder: basename(dirname(path)),
        id: literal?.[2] ?? `<not a literal: ${call[2]}>`,
        step: call[1] as Patch['step'],
        file: path,
      };
    }),
  );
}

/** The rows of the patch policy's table: workflow folder's workflow, patch id, release, date, step. */
function listedPatches(
  markdown: string,
): Array<Omit<Patch, 'file' | 'workflowFolder'> & { workflow: string; until: string }> {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('The patch policy'));
  if (!section) throw new Error('docs/deploying.md has no "The patch policy" section');
  const rows = section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2)
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim().replace(/^`|`$/g, '')),
    );
  return rows.map(([workflow = '', id = '', , until = '', step = '']) => ({
    workflow,
    id,
    until,
    step: step as Patch['step'],
  }));
}

/** Workflow type → its folder under src/workflows, and whether it auto-upgrades (src/workflows/index.ts). */
function workflowFolders(): Map<string, { folder: string; autoUpgrade: boolean }> {
  const index = readFileSync(join(workflowsDir, 'index.ts'), 'utf8');
  const folders = new Map<string, string>();
  for (const [, names = '', folder = ''] of index.matchAll(/import \{([^}]+)\} from '\.\/([\w-]+)\//g)) {
    for (const name of names.split(',')) folders.set(name.trim(), folder);
  }
  const workflows = new Map<string, { folder: string; autoUpgrade: boolean }>();
  for (const [, behaviour, name = ''] of index.matchAll(
    /setWorkflowOptions\(versioned\('(\w+)'\), (\w+)\)/g,
  )) {
    workflows.set(name, { folder: folders.get(name) ?? '?', autoUpgrade: behaviour === 'AUTO_UPGRADE' });
  }
  return workflows;
}

describe('the patch policy', () => {
  const code = patchesIn(
    sourceFiles(workflowsDir).map((path) => ({ path, text: readFileSync(path, 'utf8') })),
  );
  const listed = listedPatches(readFileSync(join(root, 'docs', 'deploying.md'), 'utf8'));
  const workflows = workflowFolders();

  it('knows every workflow the worker hosts and how it is versioned', () => {
    expect([...workflows.keys()].sort()).toEqual([
      'authorizationLifecycle',
      'ensureWebhookSubscription',
      'importCharacters',
      'paymentOutcome',
      'removeWebhookSubscription',
      'webhookVerification',
    ]);
    expect(workflows.get('authorizationLifecycle')).toEqual({ folder: 'lifecycle', autoUpgrade: true });
    expect(workflows.get('webhookVerification')).toEqual({ folder: 'webhooks', autoUpgrade: false });
  });

  it('lists every patch in the code, and nothing the code does not have, at the code’s step', () => {
    const inCode = code.map(({ workflowFolder, id, step }) => `${workflowFolder} ${id} ${step}`).sort();
    const inTable = listed
      .map(({ workflow, id, step }) => `${workflows.get(workflow)?.folder ?? workflow} ${id} ${step}`)
      .sort();
    expect(inCode).toEqual(inTable);
  });

  it('keeps each patch in the compat.ts of an AUTO_UPGRADE workflow, and names when it may go', () => {
    const autoUpgrading = [...workflows.values()]
      .filter((each) => each.autoUpgrade)
      .map((each) => each.folder);
    for (const patch of code) {
      expect(relative(workflowsDir, patch.file)).toBe(join(patch.workflowFolder, 'compat.ts'));
      expect(autoUpgrading).toContain(patch.workflowFolder);
    }
    for (const row of listed) expect(row.until).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('finds a patch wherever it is written, and a table row the code lacks', () => {
    const found = patchesIn([
      { path: '/src/workflows/lifecycle/compat.ts', text: "if (patched('split-refunds')) {}" },
      { path: '/src/workflows/webhooks/verification.ts', text: 'deprecatePatch("late-check");' },
      { path: '/src/workflows/lifecycle/workflow.ts', text: 'patched(PATCH_ID)' },
    ]);
    expect(found.map(({ workflowFolder, id, step }) => [workflowFolder, id, step])).toEqual([
      ['lifecycle', 'split-refunds', 'patched'],
      ['webhooks', 'late-check', 'deprecatePatch'],
      ['lifecycle', '<not a literal: PATCH_ID>', 'patched'],
    ]);
    const table = [
      '## The patch policy',
      '| workflow | patch | added in | needed until | step |',
      '| --- | --- | --- | --- | --- |',
      '| `authorizationLifecycle` | `split-refunds` | 1.1.0 | 2027-02-01 | `patched` |',
      '## Next',
    ].join('\n');
    expect(listedPatches(table)).toEqual([
      { workflow: 'authorizationLifecycle', id: 'split-refunds', until: '2027-02-01', step: 'patched' },
    ]);
  });
});
