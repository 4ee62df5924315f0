import { buildSchema, parse, validate } from 'graphql';
import { queryLimitsRule } from '../../src/characters/query-limits';

// A schema with nesting and lists, which interface C lacks, to exercise the rule on its own.
const schema = buildSchema(`
  type Node { name: String, child: Node, children: [Node!] }
  type Query { node: Node, nodes: [Node!] }
`);
const rule = queryLimitsRule({ maxDepth: 3, maxCost: 30, listSize: 10 });

function refusals(query: string): string[] {
  return validate(schema, parse(query), [rule]).map((error) => String(error.extensions.code));
}

describe('query limits rule', () => {
  it('admits operations within depth and cost', () => {
    expect(refusals('{ node { child { name } } }')).toEqual([]);
    expect(refusals('{ nodes { name } }')).toEqual([]); // 1 + 10 × 1
  });

  it('refuses a selection nested deeper than the limit, also through fragments', () => {
    expect(refusals('{ node { child { child { name } } } }')).toEqual(['QUERY_TOO_DEEP']);
    expect(
      refusals('{ node { ...deeper } } fragment deeper on Node { child { ... on Node { child { name } } } }'),
    ).toEqual(['QUERY_TOO_DEEP']);
  });

  it('multiplies what is selected under a list and counts every alias', () => {
    expect(refusals('{ nodes { name child { name } } }')).toEqual(['QUERY_TOO_COSTLY']); // 1 + 10 × 3
    const aliases = Array.from({ length: 16 }, (_, index) => `a${index}: node { name }`); // 2 each
    expect(refusals(`{ ${aliases.slice(0, 15).join(' ')} }`)).toEqual([]);
    expect(refusals(`{ ${aliases.join(' ')} }`)).toEqual(['QUERY_TOO_COSTLY']);
  });

  it('leaves introspection out of both limits', () => {
    expect(
      refusals('{ __schema { types { fields { type { ofType { ofType { ofType { name } } } } } } } }'),
    ).toEqual([]);
  });

  it('does not loop on cyclic fragments, which graphql reports itself', () => {
    expect(refusals('{ node { ...a } } fragment a on Node { child { ...a } }')).toEqual([]);
  });
});
