/**
 * Metadata for the benchmark's Engine: tracking (the Chinook bulk files, or
 * the generator's tables and relationships), then the `customer` role of
 * ../shared/data/chinook/README.md and the pool size, both set with one
 * `replace_metadata` on the exported document.
 */
import { GENERATED_TABLES } from '../data/generate.ts';

/** The wire shape of a metadata call's answer, loosely. */
type Json = Record<string, unknown>;

/** POSTs one metadata call (or, with `api`, a /v2/query call such as run_sql); throws on a non-200 answer. */
export async function metadataCall(engineUrl: string, body: unknown, api: '/v1/metadata' | '/v2/query' = '/v1/metadata'): Promise<Json> {
  const res = await fetch(`${engineUrl}${api}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`metadata call failed (${res.status}): ${text.slice(0, 800)}`);
  return JSON.parse(text) as Json;
}

/** Relationships of the music-store tables, as the Chinook relationships bulk names them. */
const OBJECT_RELS: ReadonlyArray<[table: string, name: string, column: string]> = [
  ['albums', 'artist', 'artist_id'],
  ['customers', 'employee', 'support_rep_id'],
  ['employees', 'employee', 'reports_to'],
  ['invoices', 'customer', 'customer_id'],
  ['invoice_lines', 'invoice', 'invoice_id'],
  ['invoice_lines', 'track', 'track_id'],
  ['playlist_track', 'playlist', 'playlist_id'],
  ['playlist_track', 'track', 'track_id'],
  ['tracks', 'album', 'album_id'],
  ['tracks', 'genre', 'genre_id'],
  ['tracks', 'media_type', 'media_type_id'],
];
const ARRAY_RELS: ReadonlyArray<[table: string, name: string, remote: string, column: string]> = [
  ['albums', 'tracks', 'tracks', 'album_id'],
  ['artists', 'albums', 'albums', 'artist_id'],
  ['customers', 'invoices', 'invoices', 'customer_id'],
  ['employees', 'customers', 'customers', 'support_rep_id'],
  ['employees', 'employees', 'employees', 'reports_to'],
  ['genres', 'tracks', 'tracks', 'genre_id'],
  ['invoices', 'invoice_lines', 'invoice_lines', 'invoice_id'],
  ['media_types', 'tracks', 'tracks', 'media_type_id'],
  ['playlists', 'playlist_tracks', 'playlist_track', 'playlist_id'],
  ['tracks', 'invoice_lines', 'invoice_lines', 'track_id'],
  ['tracks', 'playlist_tracks', 'playlist_track', 'track_id'],
];

/** Table entries (v3 metadata) for the generator's tables with their relationships. */
export function generatedTableEntries(): Json[] {
  return GENERATED_TABLES.map((name) => {
    const entry: Json = { table: { schema: 'public', name } };
    const objects = OBJECT_RELS.filter(([t]) => t === name).map(([, rel, column]) => ({ name: rel, using: { foreign_key_constraint_on: column } }));
    const arrays = ARRAY_RELS.filter(([t]) => t === name).map(([, rel, remote, column]) => ({
      name: rel,
      using: { foreign_key_constraint_on: { table: { schema: 'public', name: remote }, column } },
    }));
    if (objects.length > 0) entry['object_relationships'] = objects;
    if (arrays.length > 0) entry['array_relationships'] = arrays;
    return entry;
  });
}

/** The README's customer permission for `table`, or null when the role may not read it. */
function customerPermission(table: string): Json | null {
  if (table === 'customers') return { columns: '*', filter: { id: { _eq: 'X-Engine-User-Id' } } };
  if (table === 'invoices') return { columns: '*', filter: { customer_id: { _eq: 'X-Engine-User-Id' } } };
  if (['albums', 'artists', 'tracks', 'genres', 'media_types', 'invoice_lines'].includes(table)) return { columns: '*', filter: {} };
  return null;
}

/**
 * Replaces the metadata with the exported document plus: `tables` (when
 * given) as the default source's tables, the customer permissions, and
 * `pool_settings.max_connections = poolMax` on the default source.
 */
export async function finishMetadata(engineUrl: string, poolMax: number, tables?: Json[]): Promise<void> {
  const doc = await metadataCall(engineUrl, { type: 'export_metadata', args: {} });
  const sources = doc['sources'] as Json[];
  const source = sources.find((s) => s['name'] === 'default');
  if (source === undefined) throw new Error('no default source in the exported metadata');
  if (tables !== undefined) source['tables'] = tables;
  for (const t of source['tables'] as Json[]) {
    const name = (t['table'] as { name: string }).name;
    const permission = customerPermission(name);
    t['select_permissions'] = permission === null ? [] : [{ role: 'customer', permission }];
  }
  const config = source['configuration'] as Json;
  const info = config['connection_info'] as Json;
  info['pool_settings'] = { ...((info['pool_settings'] as Json | undefined) ?? {}), max_connections: poolMax };
  await metadataCall(engineUrl, { type: 'replace_metadata', args: doc });
}
