/**
 * The original Chinook sample of ../shared/data/chinook/, read in place
 * (never copied into the repository): its SQL, its two `bulk` metadata files
 * and the workload.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the shared Chinook folder is, seen from the repository root. */
export const CHINOOK_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'shared', 'data', 'chinook');

/** Whether the shared Chinook data is present. */
export function chinookPresent(): boolean {
  return existsSync(path.join(CHINOOK_DIR, 'chinook_pg_serial_pk_proper_naming.sql'));
}

/**
 * The tables bulk also tracks `events`, the table graphql-bench's
 * subscription mode creates; it is not in the SQL file, so it is made here
 * as that tool makes it (as test/integration/graphql/chinook.test.ts does).
 */
const EVENTS_TABLE = `CREATE TABLE events (id serial PRIMARY KEY, label text NOT NULL, connection_id int NOT NULL,
  operation_id int NOT NULL, event_number int NOT NULL, event_data json NOT NULL, event_time timestamptz NOT NULL,
  is_error boolean NOT NULL, latency int);`;

/** The Chinook SQL plus the `events` table and statistics. */
export async function chinookSql(): Promise<string> {
  const text = await readFile(path.join(CHINOOK_DIR, 'chinook_pg_serial_pk_proper_naming.sql'), 'utf8');
  return `${text}\n${EVENTS_TABLE}\nANALYZE;\n`;
}

/** The two bulk metadata files, in the order they apply. */
export async function chinookBulkFiles(): Promise<Array<{ name: string; text: string }>> {
  const names = ['psql_track_chinook_tables.json', 'psql_track_chinook_relationships.json'];
  return await Promise.all(names.map(async (name) => ({ name, text: await readFile(path.join(CHINOOK_DIR, name), 'utf8') })));
}

/** The workload file's text, or null when the shared folder has none. */
export async function chinookWorkloadText(): Promise<string | null> {
  const file = path.join(CHINOOK_DIR, 'workload.graphql');
  return existsSync(file) ? await readFile(file, 'utf8') : null;
}
