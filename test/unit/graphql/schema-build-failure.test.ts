/**
 * Note [A schema build never escapes]: a role whose schema cannot be built
 * (here a column name the catalog would have refused, put in by hand) gets a
 * clean `unexpected` error per request, remembered for the catalog version;
 * warming reports it instead of throwing; other roles keep their schemas.
 */
import { describe, expect, it } from 'vitest';
import { EngineError, ErrorCode } from '../../../engine/errors/engine-error.ts';
import { SchemaCache } from '../../../engine/graphql/schema/schema-cache.ts';
import { catalogOf, col, selectPerm, tbl } from '../../support/catalog-fixture.ts';

function brokenCatalog() {
  const fine = tbl('fine', [col('id', 'int4', { nullable: false })], { permissions: { reader: selectPerm({ columns: ['id'] }) } });
  const bad = tbl('bad', [col('id', 'int4', { nullable: false }), col('a-b', 'int4')], { permissions: { breaker: selectPerm({ columns: ['id', 'a-b'] }) } });
  return catalogOf([fine, bad]);
}

describe('a role schema that cannot be built', () => {
  it('is an unexpected EngineError for that role only, built once per catalog version', () => {
    const reported: Array<[string, EngineError]> = [];
    const cache = new SchemaCache({}, (role, e) => reported.push([role, e]));
    const catalog = brokenCatalog();
    const first = (() => {
      try {
        cache.get(catalog, 'breaker', false);
        return null;
      } catch (e) {
        return e;
      }
    })();
    expect(first).toBeInstanceOf(EngineError);
    expect(first).toMatchObject({ code: ErrorCode.Unexpected, message: 'the GraphQL schema of role "breaker" could not be built' });
    expect(JSON.stringify((first as EngineError).internal)).toContain('a-b');
    expect(() => cache.get(catalog, 'breaker', false)).toThrow(first as EngineError);
    expect(reported.map(([r]) => r)).toEqual(['breaker']);
    expect(cache.get(catalog, 'reader', false).schema.getQueryType()?.getFields()['fine']).toBeDefined();
  });

  it('does not escape warming', async () => {
    const reported: string[] = [];
    const cache = new SchemaCache({}, (role) => reported.push(role));
    cache.warm(brokenCatalog());
    const deadline = Date.now() + 5000;
    while (reported.length < 2 && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    // The admin and `breaker` read `bad`; `reader` does not.
    expect(reported.sort()).toEqual(['admin', 'breaker']);
  });
});
