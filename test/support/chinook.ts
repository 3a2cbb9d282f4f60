/**
 * The Chinook-shaped sample the tests use: the project's own generator
 * (test/bench/data/generate.ts, scale 1, deterministic), tracked the way the
 * classic Chinook bulk files track it: one `bulk` of `pg_track_table` calls,
 * then one of relationships. Nothing is read from outside the repository.
 */
import { GENERATED_TABLES, generateChinookSql } from '../bench/data/generate.ts';
import { generatedTableEntries } from '../bench/lib/engine-metadata.ts';
import type { Json } from '../bench/workload.ts';

/** The SQL that creates and fills the sample at scale 1. */
export function chinookSql(): string {
  return generateChinookSql(1);
}

/** `bulk` tracking every generated table (what psql_track_chinook_tables.json does). */
export function chinookTrackTables(): { type: 'bulk'; args: Json[] } {
  return {
    type: 'bulk',
    args: GENERATED_TABLES.map((name) => ({ type: 'pg_track_table', args: { table: { schema: 'public', name } } })),
  };
}

/** `bulk` creating every relationship of the sample (what psql_track_chinook_relationships.json does). */
export function chinookTrackRelationships(): { type: 'bulk'; args: Json[] } {
  const calls: Json[] = [];
  for (const entry of generatedTableEntries()) {
    const e = entry as { table: Json; object_relationships?: Json[]; array_relationships?: Json[] };
    for (const r of e.object_relationships ?? []) calls.push({ type: 'pg_create_object_relationship', args: { table: e.table, ...(r as object) } });
    for (const r of e.array_relationships ?? []) calls.push({ type: 'pg_create_array_relationship', args: { table: e.table, ...(r as object) } });
  }
  return { type: 'bulk', args: calls };
}
