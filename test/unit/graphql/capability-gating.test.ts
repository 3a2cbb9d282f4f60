/**
 * Every capability the schema builder offers is a flag of the source's
 * backend (Capabilities in backends/backend.ts; live queries: the presence of
 * Backend.liveQueries). A source whose backend lacks them shows none of those
 * fields, while a PostgreSQL source in the same catalog keeps them.
 */
import { assertValidSchema, isObjectType, type GraphQLSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../../engine/backends/backend.ts';
import { backendFor } from '../../../engine/backends/registry.ts';
import type { Catalog, SourceInfo, TableInfo } from '../../../engine/catalog/types.ts';
import { tableKey } from '../../../engine/catalog/types.ts';
import { buildRoleSchema } from '../../../engine/graphql/schema/build-schema.ts';
import { arrRel, catalogOf, col, objRel, tbl, unusedConnection } from '../../support/catalog-fixture.ts';

/** The postgres backend with every optional capability off and no live queries. */
function limitedBackend(): Backend {
  const { liveQueries: _none, ...pg } = backendFor('postgres');
  return {
    ...pg,
    capabilities: {
      mutations: false,
      returning: false,
      upsert: null,
      distinctOn: false,
      aggregates: false,
      streaming: false,
      relay: false,
      nestedInserts: false,
    },
  };
}

/** `artists` and `albums` (one to many), named with `prefix`, in `source`. */
function tables(source: string, prefix: string): TableInfo[] {
  const artists = tbl('artists', [col('id', 'int4', { nullable: false }), col('name', 'text')], {
    gqlName: `${prefix}artists`,
    relationships: [arrRel('albums', 'albums', [['id', 'artist_id']])],
  });
  const albums = tbl('albums', [col('id', 'int4', { nullable: false }), col('title', 'text'), col('artist_id', 'int4')], {
    gqlName: `${prefix}albums`,
    relationships: [objRel('artist', 'artists', [['artist_id', 'id']])],
  });
  return [artists, albums].map((t) => ({ ...t, source }));
}

/** A catalog with a postgres `default` source and a source `other` whose backend is `backend`. */
function twoSources(backend: Backend): Catalog {
  const base = catalogOf(tables('default', ''));
  const otherTables = tables('other', 'o_');
  const other: SourceInfo = {
    name: 'other',
    kind: 'postgres',
    backend,
    connection: unusedConnection,
    tables: new Map(otherTables.map((t) => [tableKey(t.name), t])),
  };
  return { ...base, sources: new Map([...base.sources, ['other', other]]) };
}

function rootFields(schema: GraphQLSchema, root: 'query' | 'mutation' | 'subscription'): string[] {
  const t = root === 'query' ? schema.getQueryType() : root === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  return Object.keys(t?.getFields() ?? {});
}

function argNames(schema: GraphQLSchema, field: string): string[] {
  return (schema.getQueryType()?.getFields()[field]?.args ?? []).map((a) => a.name);
}

function inputFields(schema: GraphQLSchema, type: string): string[] {
  const t = schema.getType(type);
  return t !== undefined && t !== null && 'getFields' in t ? Object.keys(t.getFields()) : [];
}

describe('capability gating', () => {
  it('a source whose backend lacks capabilities offers none of their fields; the postgres source keeps them', () => {
    const { schema } = buildRoleSchema(twoSources(limitedBackend()), 'admin', true);
    assertValidSchema(schema);
    const query = rootFields(schema, 'query');
    const subscription = rootFields(schema, 'subscription');
    const mutation = rootFields(schema, 'mutation');

    // PostgreSQL: live queries, streams, distinct_on, aggregates, mutations, nested inserts.
    expect(query).toEqual(expect.arrayContaining(['albums', 'albums_by_pk', 'albums_aggregate']));
    expect(subscription).toEqual(expect.arrayContaining(['albums', 'albums_by_pk', 'albums_aggregate', 'albums_stream']));
    expect(argNames(schema, 'albums')).toContain('distinct_on');
    expect(mutation).toEqual(expect.arrayContaining(['insert_albums', 'update_albums', 'delete_albums_by_pk']));
    expect(inputFields(schema, 'artists_insert_input')).toContain('albums');
    expect(inputFields(schema, 'albums_insert_input')).toContain('artist');
    const artists = schema.getType('artists');
    expect(isObjectType(artists) && Object.keys(artists.getFields())).toContain('albums_aggregate');

    // The limited source: reads only.
    expect(query).toEqual(expect.arrayContaining(['o_albums', 'o_albums_by_pk', 'o_artists']));
    expect(query).not.toContain('o_albums_aggregate');
    expect(subscription.filter((f) => f.startsWith('o_'))).toEqual([]);
    expect(argNames(schema, 'o_albums')).not.toContain('distinct_on');
    expect(argNames(schema, 'o_albums')).toEqual(expect.arrayContaining(['limit', 'offset', 'order_by', 'where']));
    expect(mutation.filter((f) => f.includes('o_'))).toEqual([]);
    expect(schema.getType('o_albums_insert_input')).toBeUndefined();
    const oArtists = schema.getType('o_artists');
    expect(isObjectType(oArtists) && Object.keys(oArtists.getFields())).toEqual(['id', 'name', 'albums']);
    expect(schema.getType('o_albums_aggregate')).toBeUndefined();
  });

  it('nested inserts and subscriptions are separate flags', () => {
    const pg = backendFor('postgres');
    const { schema } = buildRoleSchema(twoSources({ ...pg, capabilities: { ...pg.capabilities, nestedInserts: false, streaming: false } }), 'admin', true);
    // Mutations stay, without inserts through relationships.
    expect(rootFields(schema, 'mutation')).toContain('insert_o_albums');
    expect(inputFields(schema, 'o_artists_insert_input')).toEqual(['id', 'name']);
    expect(inputFields(schema, 'artists_insert_input')).toContain('albums');
    // Live queries stay, without streams.
    const subscription = rootFields(schema, 'subscription');
    expect(subscription).toContain('o_albums');
    expect(subscription).not.toContain('o_albums_stream');
    expect(subscription).toContain('albums_stream');
  });

  it('Relay: no connections of a source without Relay support', () => {
    const { schema } = buildRoleSchema(twoSources(limitedBackend()), 'admin', true, { relay: true });
    assertValidSchema(schema);
    const query = rootFields(schema, 'query');
    expect(query).toContain('albums_connection');
    expect(argNames(schema, 'albums_connection')).toContain('distinct_on');
    expect(query.filter((f) => f.startsWith('o_'))).toEqual([]);
    expect(schema.getType('o_albumsConnection')).toBeUndefined();
    const artists = schema.getType('artists');
    expect(isObjectType(artists) && Object.keys(artists.getFields())).toContain('albums_connection');
  });
});
