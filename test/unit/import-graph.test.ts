import path from 'node:path';
import madge from 'madge';

// ESLint's import-x/no-cycle sees only value imports; here madge reads type imports too, so a circle of types
// fails as well.

const root = path.resolve(__dirname, '../..');

async function circlesIn(folder: string): Promise<string[][]> {
  const graph = await madge(path.join(root, folder), {
    fileExtensions: ['ts'],
    tsConfig: path.join(root, 'tsconfig.json'),
    detectiveOptions: { ts: { skipTypeImports: false }, es6: { skipTypeImports: false } },
  });
  return graph.circular();
}

test('no import circle in src, type imports included', async () => {
  expect(await circlesIn('src')).toEqual([]);
});

test('a circle of type imports is found', async () => {
  expect(await circlesIn('test/fixtures/import-circle')).toEqual([['a.ts', 'b.ts']]);
});
