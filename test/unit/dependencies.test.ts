import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { satisfies, subset } from 'semver';

// The dependency set as data: package.json, the lock file and the Dockerfile agree on the Node they run on.
const root = join(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[] }>;
};
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
const ci = readFileSync(join(root, '.ci', 'run'), 'utf8');
const ours = manifest.engines.node;

describe('dependencies', () => {
  it('declare a Node range that every locked package accepts (npm install prints no EBADENGINE)', () => {
    const refusing = Object.entries(lock.packages)
      .filter(([path]) => path !== '')
      .flatMap(([path, entry]) => {
        const theirs = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return theirs && !subset(ours, theirs) ? [`${path.replace(/^.*node_modules\//, '')}: ${theirs}`] : [];
      });
    expect(refusing).toEqual([]);
  });

  it('run on the Node of this machine', () => {
    expect(satisfies(process.version, ours)).toBe(true);
  });

  it('build images on a pinned Node release inside that range, from the lock file as it is', () => {
    const bases = [...dockerfile.matchAll(/^FROM node:(\S+)/gm)].map((match) => match[1] as string);
    expect(bases.length).toBeGreaterThan(0);
    for (const base of bases) {
      const version = /^(\d+\.\d+\.\d+)-/.exec(base)?.[1];
      expect(version).toBeDefined();
      expect(satisfies(version as string, ours)).toBe(true);
    }
    const installs = dockerfile
      .split('\n')
      .filter((line) => /RUN npm (install|ci)\b(?! --global)/.test(line));
    expect(installs.length).toBe(2);
    for (const install of installs) expect(install).toMatch(/cmp package-lock\.json \/tmp\/locked\.json/);
  });

  it('build images on the Node LTS that CI runs the whole suite on', () => {
    const ciNode = /^NODE_LTS_VERSION=(\d+\.\d+\.\d+)$/m.exec(ci)?.[1];
    expect(ciNode).toBeDefined();
    expect(satisfies(ciNode as string, ours)).toBe(true);
    // An even major of at least 22: a release line in (or on its way to) long-term support.
    const major = Number((ciNode as string).split('.')[0]);
    expect(major % 2 === 0 && major >= 22).toBe(true);
    const bases = [...dockerfile.matchAll(/^FROM node:(\S+)/gm)].map((match) => match[1] as string);
    for (const base of bases) expect(base.startsWith(`${ciNode}-`)).toBe(true);
  });

  it('keep tsx out of the production dependencies: images run compiled JavaScript', () => {
    expect(Object.keys(manifest.dependencies)).not.toContain('tsx');
    expect(dockerfile).not.toMatch(/\btsx\b/);
  });
});
