import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { configVariableNames } from '../../src/config';

const root = join(__dirname, '..', '..');
const read = (path: string): string => readFileSync(join(root, path), 'utf8');

const readme = read('README.md');
const docs = readdirSync(join(root, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
const markdownFiles = ['README.md', ...docs];

/** The text outside fenced code blocks and inline code spans, where links and headings are markdown. */
function prose(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces as hyphens. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const [, heading = ''] of prose(markdown).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    let anchor = slug;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${slug}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** Every link and image target of a markdown file that is not a URL with a scheme (http:, mailto:, …). */
function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)]
    .map(([, target = '']) => target)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** The lines of the fenced block that follows `heading` in `markdown`. */
function blockUnder(markdown: string, heading: string): string[] {
  const after = markdown.slice(markdown.indexOf(`\n${heading}\n`));
  const block = /```[^\n]*\n([\s\S]*?)\n```/.exec(after);
  if (block === null) throw new Error(`no code block under ${heading}`);
  return (block[1] ?? '').split('\n');
}

describe('README.md', () => {
  it('keeps the two Quickstart commands', () => {
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test');
  });

  it('links every page of docs/ from its docs map', () => {
    const linked = new Set(relativeLinks(readme).map((target) => target.split('#')[0]));
    expect(docs.filter((doc) => !linked.has(doc))).toEqual([]);
  });

  it('names in its Layout every folder of src/ and test/, and only paths that exist', () => {
    const layout = blockUnder(readme, '## Layout');
    const named = layout.flatMap((line) =>
      [...line.matchAll(/\b(?:src|test)\/[\w./*-]*/g)].map(([path]) => path),
    );
    const missing = named.filter((path) => !path.includes('*') && !existsSync(join(root, path)));
    expect(missing).toEqual([]);

    const folders = ['src', 'test'].flatMap((parent) =>
      readdirSync(join(root, parent))
        .filter((name) => statSync(join(root, parent, name)).isDirectory())
        .map((name) => `${parent}/${name}/`),
    );
    expect(folders.filter((folder) => !named.includes(folder))).toEqual([]);
  });
});

describe('docs/configuration.md', () => {
  it('documents every configuration variable the service reads', () => {
    const tableRows = read('docs/configuration.md')
      .split('\n')
      .filter((line) => line.startsWith('|'));
    const undocumented = configVariableNames.filter(
      (name) => !tableRows.some((row) => row.includes(`\`${name}\``)),
    );
    expect(undocumented).toEqual([]);
  });
});

describe('links in README.md and docs/', () => {
  it.each(markdownFiles)('%s links only files and headings that exist', (file) => {
    const broken = relativeLinks(read(file)).filter((target) => {
      const [path = '', anchor] = target.split('#');
      const linked = path === '' ? file : normalize(join(dirname(file), path));
      if (!existsSync(join(root, linked))) return true;
      return anchor !== undefined && !headingAnchors(read(linked)).has(anchor);
    });
    expect(broken).toEqual([]);
  });

  it.each(markdownFiles)('%s names in code spans only project paths that exist', (file) => {
    const paths = [...read(file).matchAll(/`((?:src|test|bench|deploy|examples|docs)\/[\w./-]+)`/g)].map(
      ([, path = '']) => path,
    );
    expect(paths.filter((path) => !existsSync(join(root, path)))).toEqual([]);
  });
});
