/**
 * Note [Which types are validated] (graphql/schema/collect-types.ts): the
 * engine trusts the types it generates from the catalog instead of having
 * graphql-js validate them. So graphql-js's full validateSchema runs here on
 * the schemas of every role over the golden fixture (tables, a view, an enum
 * table, a function, computed fields, relationships, aggregates, mutations,
 * streams) plain, with type and root-field customization, under a namespace,
 * under the graphql-default naming convention and as the Relay schema, and
 * must find nothing; and a generated type whose names come out invalid (a `__`
 * type-name or root-field prefix, a `__` field name, a table without
 * columns)
 * still gets graphql-js's own errors. (An enum value `true`, `false` or
 * `null` is refused by graphql-js's constructor already.)
 */
import { GraphQLInt, GraphQLSchema, GraphQLString, validateSchema, type GraphQLNamedType } from 'graphql';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IntrospectedTable } from '../../../engine/backends/introspection.ts';
import type { Catalog } from '../../../engine/catalog/types.ts';
import { prepareOperation } from '../../../engine/execute/validate.ts';
import { schemaOf } from '../../../engine/graphql/schema/collect-types.ts';
import { generatedInputObjectType, generatedObjectType, isGenerated } from '../../../engine/graphql/schema/lean-types.ts';
import { SchemaCache } from '../../../engine/graphql/schema/schema-cache.ts';
import { emptyTable, type JsonObject, type MetadataDocument, type SourceMetadata, type TableMetadata } from '../../../engine/model/document.ts';
import { catalogFromRecording, readMetadata, readRecording, type Recording } from '../../support/recorded-catalog.ts';

const fixture = path.join(path.dirname(new URL(import.meta.url).pathname), '../../golden/fixture');
const baseDoc = readMetadata(path.join(fixture, 'metadata.json'));
const baseRecording = readRecording(path.join(fixture, 'introspection.json'));

/** The fixture's albums table as a view (no key, read only) named `album_titles`. */
function albumView(): IntrospectedTable {
  const albums = baseRecording.tables.find(([k]) => k === 'public.albums')?.[1];
  if (albums === undefined) throw new Error('no albums in the fixture');
  return {
    ...albums,
    name: { schema: 'public', name: 'album_titles' },
    kind: 'view',
    primaryKey: null,
    uniqueConstraints: [],
    foreignKeys: [],
    mutability: { insertable: false, updatable: false, deletable: false },
  };
}

const recording: Recording = { ...baseRecording, tables: [...baseRecording.tables, ['public.album_titles', albumView()]] };

/** The fixture's document with the view tracked (readable by `user`) and `change` applied to its source. */
function documentWith(change: (s: SourceMetadata) => SourceMetadata = (s) => s, rec: Recording = recording): MetadataDocument {
  const source = baseDoc.sources[0];
  if (source === undefined) throw new Error('no source in the fixture');
  const tracked = new Set(source.tables.map((t) => `${t.table.schema}.${t.table.name}`));
  const extra: TableMetadata[] = rec.tables
    .filter(([k]) => !tracked.has(k))
    .map(([, t]) => ({
      ...emptyTable(t.name),
      select_permissions: [{ role: 'user', permission: { columns: '*', filter: {} as JsonObject, allow_aggregations: true } }],
    }));
  return { ...baseDoc, sources: [change({ ...source, tables: [...source.tables, ...extra] })] };
}

function catalogOf(doc: MetadataDocument, rec: Recording = recording): Catalog {
  const catalog = catalogFromRecording(doc, rec);
  expect(catalog.inconsistencies).toEqual([]);
  return catalog;
}

/** Every role's schema of `catalog` (admin first), as the engine serves them. */
function schemas(catalog: Catalog, relay = false): Array<[string, GraphQLSchema]> {
  const cache = new SchemaCache({ relay });
  const roles: Array<[string, boolean]> = [['admin', true], ...catalog.roles.map((r): [string, boolean] => [r, false])];
  return roles.map(([role, isAdmin]) => [role, cache.get(catalog, role, isAdmin).schema]);
}

/** graphql-js's full validation of the very types of `schema`, none of them marked validated. */
function fullValidation(schema: GraphQLSchema): string[] {
  return validateSchema(new GraphQLSchema(schema.toConfig())).map((e) => e.message);
}

const VARIANTS: Array<[string, (s: SourceMetadata) => SourceMetadata, boolean?]> = [
  ['plain', (s) => s],
  [
    'type and root-field customization',
    (s) => ({ ...s, customization: { type_names: { prefix: 'pre_', suffix: '_suf' }, root_fields: { prefix: 'r_', suffix: '_s' } } }),
  ],
  ['a namespace', (s) => ({ ...s, customization: { root_fields: { namespace: 'music' } } })],
  ['graphql-default naming', (s) => ({ ...s, customization: { naming_convention: 'graphql-default' } })],
  ['the Relay schema', (s) => s, true],
];

/** Type name endings of the generated type families, each of which a plain schema must hold. */
const FAMILIES = [
  '_bool_exp',
  '_order_by',
  '_select_column',
  '_aggregate',
  '_aggregate_fields',
  '_avg_fields',
  '_sum_order_by',
  '_aggregate_order_by',
  '_aggregate_bool_exp',
  '_insert_input',
  '_on_conflict',
  '_constraint',
  '_update_column',
  '_set_input',
  '_inc_input',
  '_pk_columns_input',
  '_updates',
  '_mutation_response',
  '_obj_rel_insert_input',
  '_arr_rel_insert_input',
  '_stream_cursor_input',
  '_stream_cursor_value_input',
  '_comparison_exp',
  '_args',
  '_enum',
];

describe('generated types graphql-js would accept', () => {
  for (const [name, change, relay] of VARIANTS) {
    it(`every role's schema passes graphql-js's full validation: ${name}`, () => {
      const catalog = catalogOf(documentWith(change));
      const all = schemas(catalog, relay === true);
      expect(all.length).toBeGreaterThan(2);
      for (const [role, schema] of all) {
        expect({ role, errors: fullValidation(schema) }).toEqual({ role, errors: [] });
        // And the engine's own path accepts it.
        expect(() => prepareOperation(schema, '{ __typename }', null)).not.toThrow();
      }
    });
  }

  it('trusts every generated type family of a plain schema (so the checks above cover them)', () => {
    const [, admin] = schemas(catalogOf(documentWith()))[0] as [string, GraphQLSchema];
    const generated = Object.values(admin.getTypeMap()).filter((t: GraphQLNamedType) => isGenerated(t));
    for (const ending of FAMILIES) expect({ ending, found: generated.some((t) => t.name.endsWith(ending)) }).toEqual({ ending, found: true });
    expect(generated.some((t) => t.name === 'album_titles')).toBe(true);
    // Root types of table and function fields only are trusted too.
    expect(['query_root', 'mutation_root', 'subscription_root'].filter((n) => generated.some((t) => t.name === n))).toEqual([
      'query_root',
      'mutation_root',
      'subscription_root',
    ]);
    expect(generated.some((t) => t.name === 'search_genres_args')).toBe(true);
  });
});

describe('generated types with names from outside', () => {
  /** The error a request gets from `schema`, and graphql-js's own errors of it. */
  function errorsOf(schema: GraphQLSchema): { readonly got: string; readonly expected: string[] } {
    const expected = fullValidation(schema);
    let got = '';
    try {
      prepareOperation(schema, '{ __typename }', null);
    } catch (e) {
      got = e instanceof Error ? e.message : String(e);
    }
    return { got, expected };
  }

  it("a generated type with a `__` field or argument name (a remote relationship's, say) gets graphql-js's errors", () => {
    const where = generatedInputObjectType({ name: 'thing_bool_exp', fields: { id: { type: GraphQLInt } } });
    const thing = generatedObjectType({ name: 'thing', fields: { id: { type: GraphQLInt }, __remote: { type: GraphQLString } } });
    const other = generatedObjectType({ name: 'other', fields: { id: { type: GraphQLInt, args: { __where: { type: where } } } } });
    const query = generatedObjectType({ name: 'query_root', fields: { thing: { type: thing }, other: { type: other } } });
    const { got, expected } = errorsOf(schemaOf(query, undefined).schema);
    expect(expected).toEqual([
      'Name "__remote" must not begin with "__", which is reserved by GraphQL introspection.',
      'Name "__where" must not begin with "__", which is reserved by GraphQL introspection.',
    ]);
    expect(got).toBe(expected.join('\n\n'));
  });

  it("a `__` type-name prefix gets graphql-js's errors", () => {
    const doc = documentWith((s) => ({ ...s, customization: { type_names: { prefix: '__' } } }));
    const [, admin] = schemas(catalogOf(doc))[0] as [string, GraphQLSchema];
    const { got, expected } = errorsOf(admin);
    expect(expected).toContain('Name "__genres" must not begin with "__", which is reserved by GraphQL introspection.');
    expect(got).toBe(expected.join('\n\n'));
  });

  it("a `__` root-field prefix gets graphql-js's errors", () => {
    const doc = documentWith((s) => ({ ...s, customization: { root_fields: { prefix: '__' } } }));
    const [, admin] = schemas(catalogOf(doc))[0] as [string, GraphQLSchema];
    const { got, expected } = errorsOf(admin);
    expect(expected).toContain('Name "__genres" must not begin with "__", which is reserved by GraphQL introspection.');
    expect(got).toBe(expected.join('\n\n'));
  });

  it("a table without columns gets graphql-js's errors", () => {
    const empty: IntrospectedTable = { ...albumView(), name: { schema: 'public', name: 'nothing' }, kind: 'table', columns: [] };
    const rec: Recording = { ...recording, tables: [...recording.tables, ['public.nothing', empty]] };
    const [, admin] = schemas(catalogOf(documentWith(undefined, rec), rec))[0] as [string, GraphQLSchema];
    const { got, expected } = errorsOf(admin);
    expect(expected).toContain('Type nothing must define one or more fields.');
    expect(got).toBe(expected.join('\n\n'));
  });
});
