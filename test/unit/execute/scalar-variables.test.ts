/**
 * Note [Scalar variables at once]: the fast coercer of built-in scalar
 * variables answers exactly what graphql-js's getVariableValues answers, or
 * hands the request to it (null).
 */
import { buildSchema, getVariableValues, parse, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { scalarCoercer } from '../../../engine/execute/scalar-variables.ts';
import { buildSession } from '../../../engine/auth/session.ts';
import { planRequest } from '../../../engine/execute/request-steps.ts';
import { PlanCache } from '../../../engine/execute/plan-cache.ts';
import { SchemaCache } from '../../../engine/graphql/schema/schema-cache.ts';
import { musicCatalog } from '../../support/catalog-fixture.ts';

const schema = buildSchema(`
  enum Color { RED }
  input Box { n: Int }
  scalar uuid
  type Query { f(a: Int, b: Float, c: String, d: Boolean, e: ID, g: Int, h: [Int], i: Color, j: Box, k: uuid): Int }
`);

function operation(text: string): OperationDefinitionNode {
  const def = parse(text).definitions[0];
  if (def?.kind !== 'OperationDefinition') throw new Error('not an operation');
  return def;
}

const ALL = operation('query Q($a: Int!, $b: Float, $c: String!, $d: Boolean, $e: ID, $g: Int) { f(a: $a, b: $b, c: $c, d: $d, e: $e, g: $g) }');

/** graphql-js's answer: the coerced object, or null when it reports an error. */
function general(inputs: Record<string, unknown>): Record<string, unknown> | null {
  const r = getVariableValues(schema, ALL.variableDefinitions ?? [], inputs);
  return r.errors === undefined ? r.coerced : null;
}

const VALUES: readonly unknown[] = [
  0,
  -0,
  7,
  2.5,
  2147483647,
  2147483648,
  -2147483648,
  -2147483649,
  NaN,
  Infinity,
  '7',
  'x',
  '',
  true,
  false,
  null,
  [],
  {},
  [1],
];

describe('scalar variables at once', () => {
  it('agrees with graphql-js on every value of every built-in scalar, or leaves the value to it', () => {
    let answered = 0;
    for (const name of ['a', 'b', 'c', 'd', 'e', 'g']) {
      for (const v of VALUES) {
        const inputs: Record<string, unknown> = { a: 1, c: 's', [name]: v };
        const fast = scalarCoercer(schema, ALL)?.(inputs);
        if (fast === null || fast === undefined) {
          // Handed over: only when graphql-js refuses it too (numbers as strings are its business then).
          expect(general(inputs), `${name} = ${JSON.stringify(v)}`).toBeNull();
          continue;
        }
        answered++;
        expect(fast, `${name} = ${JSON.stringify(v)}`).toEqual(general(inputs));
        // Same keys in the same order (the plan cache's structural keys read them).
        expect(Object.keys(fast)).toEqual(Object.keys(general(inputs) ?? {}));
      }
    }
    // The fast path does answer: most of these values are valid for some scalar.
    expect(answered).toBeGreaterThan(30);
  });

  it('turns a whole number into the text of an ID, as graphql-js does', () => {
    expect(scalarCoercer(schema, ALL)?.({ a: 1, c: 's', e: 42 })).toEqual({ a: 1, c: 's', e: '42' });
  });

  it('keeps absent nullable variables absent and refuses absent or null non-null ones', () => {
    const c = scalarCoercer(schema, ALL);
    expect(c?.({ a: 1, c: 's' })).toEqual({ a: 1, c: 's' });
    expect(c?.({ a: 1, c: 's', b: null })).toEqual({ a: 1, c: 's', b: null });
    expect(c?.({ c: 's' })).toBeNull();
    expect(c?.({ a: null, c: 's' })).toBeNull();
    // Inherited properties are not variables.
    expect(scalarCoercer(schema, operation('query Q($constructor: Int) { f(a: $constructor) }'))?.({})).toEqual({});
  });

  it('is not made for lists, enums, input objects, other scalars or default values', () => {
    for (const q of [
      'query Q($h: [Int]) { f(h: $h) }',
      'query Q($i: Color) { f(i: $i) }',
      'query Q($j: Box) { f(j: $j) }',
      'query Q($k: uuid) { f(k: $k) }',
      'query Q($a: Int = 3) { f(a: $a) }',
      'query Q($a: Int!, $h: [Int]) { f(a: $a, h: $h) }',
    ])
      expect(scalarCoercer(schema, operation(q)), q).toBeNull();
  });

  it('serves the plan-cache hits of planRequest, and a value it refuses gets the v2 error', () => {
    const env = { schemas: new SchemaCache(), stringifyNumericTypes: false, fieldLimit: 0, cache: new PlanCache(1 << 20) };
    const catalog = musicCatalog();
    const session = buildSession('admin', {});
    const query = 'query A($id: Int!) { albums_by_pk(id: $id) { id } }';
    const first = planRequest(env, { catalog, session, request: { query, variables: { id: 1 }, operationName: null }, limits: null, readOnly: false });
    const p = first.pending;
    if (p === null) throw new Error('expected a miss');
    expect(p.entry.scalars).toBeTypeOf('function');
    env.cache.store(p.version, p.key, p.entry, p.planKey, first.plan);
    const hit = planRequest(env, {
      catalog,
      session,
      request: { query, variables: { id: 2, other: 'x' }, operationName: null },
      limits: null,
      readOnly: false,
    });
    expect(hit.pending).toBeNull();
    expect(hit.variables).toEqual({ id: 2 });
    // A number sent as a string: v2 reads it (Note [Lenient variables]) on the general path.
    expect(
      planRequest(env, { catalog, session, request: { query, variables: { id: '3' }, operationName: null }, limits: null, readOnly: false }).variables,
    ).toEqual({ id: 3 });
    expect(() =>
      planRequest(env, { catalog, session, request: { query, variables: { id: 2.5 }, operationName: null }, limits: null, readOnly: false }),
    ).toThrow(/lies outside the bounds or is not an integer/);
  });
});
