/**
 * Depth, node and field counts of an operation (Note [Operation cost]),
 * with v2's examples of depth and nodes.
 */
import { getOperationAST, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { measureOperation } from '../../../engine/execute/operation-cost.ts';

function measure(query: string): ReturnType<typeof measureOperation> {
  const doc = parse(query);
  const op = getOperationAST(doc, null);
  if (op === null || op === undefined) throw new Error('no operation');
  return measureOperation(doc, op);
}

describe('measureOperation', () => {
  it("counts v2's depth and nodes", () => {
    expect(measure('{ viewer { name } }')).toMatchObject({ depth: 1, nodes: 1, fields: 2 });
    expect(measure('{ viewer { ... on User { name } } }')).toMatchObject({ depth: 1, nodes: 1 });
    expect(measure('{ viewer { albums { title } } }')).toMatchObject({ depth: 2, nodes: 2 });
    // v2's node example: author, articles and homepage_entries.
    expect(measure('{ author { name articles { id title } } homepage_entries { article_id } }')).toMatchObject({ depth: 2, nodes: 3, fields: 7 });
  });

  it('expands fragments where they are spread', () => {
    const q = 'query { a: viewer { ...F } b: viewer { ...F } } fragment F on User { albums { title } }';
    expect(measure(q)).toMatchObject({ depth: 2, nodes: 4, fields: 6 });
  });

  it('survives fragment cycles (refused later by validation)', () => {
    expect(measure('query { viewer { ...A } } fragment A on User { friends { ...B } } fragment B on User { friends { ...A } }')).toMatchObject({
      depth: 3,
      nodes: 3,
    });
  });

  it('tells introspection operations apart', () => {
    expect(measure('{ __schema { types { name } } __typename }').introspection).toBe(true);
    expect(measure('{ __schema { types { name } } viewer { name } }').introspection).toBe(false);
  });
});
