/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * The Chinook workload (shared/data/chinook/workload.graphql) through HTTP:
 * the sample database, its two bulk metadata files, and the `customer`
 * permission of its README, run as admin and as a customer. Read from the
 * shared folder, never copied; skipped when the folder is absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, print, Kind, type OperationDefinitionNode } from 'graphql';
import { startReadFixture, type ReadFixture } from './fixture.ts';
import { CHINOOK_DIR } from '../../support/shared-data.ts';

const dir = CHINOOK_DIR;
const present = existsSync(path.join(dir, 'workload.graphql'));

let f: ReadFixture;
const ops = new Map<string, string>();

beforeAll(async () => {
  if (!present) return;
  const read = (n: string): string => readFileSync(path.join(dir, n), 'utf8');
  const tables = JSON.parse(read('psql_track_chinook_tables.json')) as Record<string, unknown>;
  const rels = JSON.parse(read('psql_track_chinook_relationships.json')) as Record<string, unknown>;
  // The bulk files carry resource_version for a fresh store (1, 2); send them as written.
  // The tables bulk also tracks `events`, the table graphql-bench's subscription mode creates; it is
  // not in the SQL file, so it is made here as that tool makes it.
  const events = `CREATE TABLE events (id serial PRIMARY KEY, label text NOT NULL, connection_id int NOT NULL,
    operation_id int NOT NULL, event_number int NOT NULL, event_data json NOT NULL, event_time timestamptz NOT NULL,
    is_error boolean NOT NULL, latency int);`;
  f = await startReadFixture({}, read('chinook_pg_serial_pk_proper_naming.sql') + events, tables);
  const r = await f.md(rels);
  if (r.status !== 200) throw new Error(`relationships: ${r.text}`);
  const doc = (await f.md({ type: 'export_metadata', args: {} })).body;
  for (const t of doc.sources[0].tables) {
    const name = t.table.name as string;
    if (name === 'customers') t.select_permissions = [{ role: 'customer', permission: { columns: '*', filter: { id: { _eq: 'X-Engine-User-Id' } } } }];
    if (name === 'invoices') t.select_permissions = [{ role: 'customer', permission: { columns: '*', filter: { customer_id: { _eq: 'X-Engine-User-Id' } } } }];
    if (['albums', 'artists', 'tracks', 'genres', 'media_types', 'invoice_lines'].includes(name)) {
      t.select_permissions = [{ role: 'customer', permission: { columns: '*', filter: {} } }];
    }
  }
  const p = await f.md({ type: 'replace_metadata', args: doc });
  if (p.status !== 200) throw new Error(`permissions: ${p.text}`);
  for (const d of parse(read('workload.graphql')).definitions) {
    if (d.kind === Kind.OPERATION_DEFINITION && d.name !== undefined) ops.set(d.name.value, print(d as OperationDefinitionNode));
  }
}, 180_000);

afterAll(async () => {
  await f?.close();
});

const customer = { 'x-engine-role': 'customer', 'x-engine-user-id': '5' };

describe.skipIf(!present)('Chinook workload', () => {
  async function run(name: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<any> {
    const q = ops.get(name);
    expect(q).toBeDefined();
    const r = await f.gql(q ?? '', variables, headers);
    expect(r.errors).toBeUndefined();
    return r.data;
  }

  it('every operation runs as admin and as customer', async () => {
    for (const name of ops.keys()) {
      const vars = name === 'CustomerInvoices' ? { id: 5 } : undefined;
      await run(name, vars);
      // v2 compat: the README's permission has no allow_aggregations, so `_aggregate` fields are not in
      // the customer's schema.
      if (name === 'ArtistAggregates') {
        const r = await f.gql(ops.get(name) ?? '', vars, customer);
        expect(r.errors[0].message).toBe("field 'albums_aggregate' not found in type: 'artists'");
        continue;
      }
      await run(name, vars, customer);
    }
  });

  it('AlbumByPK', async () => {
    expect(await run('AlbumByPK')).toEqual({ albums_by_pk: { id: 1, title: 'For Those About To Rock We Salute You' } });
  });

  it('AlbumsArtistTracksGenre and ArtistAggregates have the nested shapes', async () => {
    const a = await run('AlbumsArtistTracksGenre');
    expect(a.albums).toHaveLength(50);
    expect(a.albums[0].artist.name).toBe('AC/DC');
    expect(a.albums[0].tracks[0]).toMatchObject({ genre: { name: 'Rock' }, media_type: { name: expect.any(String) } });
    const g = await run('ArtistAggregates');
    expect(g.artists[0]).toMatchObject({ name: 'AC/DC', albums_aggregate: { aggregate: { count: 2 } } });
    expect(g.artists[0].albums[0].tracks_aggregate.aggregate.count).toBeGreaterThan(0);
  });

  it('CustomerInvoices: the customer sees only their own invoices', async () => {
    const own = await run('CustomerInvoices', { id: 5 }, customer);
    expect(own.customers_by_pk.invoices.length).toBeGreaterThan(0);
    const other = await run('CustomerInvoices', { id: 6 }, customer);
    expect(other.customers_by_pk).toBeNull();
    const admin = await run('CustomerInvoices', { id: 6 });
    expect(admin.customers_by_pk.invoices.length).toBeGreaterThan(0);
  });
});
