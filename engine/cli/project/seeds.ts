/**
 * Seeds in v2's layout: `seeds/<database>/<timestamp>_<name>.sql`, applied in file-name order
 * through `run_sql`, each file in its own transaction.
 *
 * Note [Seeds from a table]
 * v2 dumps a table's rows with pg_dump. Here the rows are read as JSON (`to_jsonb` of each row)
 * and the seed is one INSERT that turns that JSON back into rows of the table's own type
 * (`jsonb_populate_recordset`), so every column type round-trips without per-type quoting; the
 * only literal in the file is the JSON text, quoted by {@link sqlString}. The table name is
 * quoted as identifiers.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EngineApi } from './engine-api.ts';
import { newVersion } from './migrations.ts';
import { databaseMessage, StepError, UsageError, type Io } from './output.ts';

/** A PostgreSQL identifier, quoted. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A PostgreSQL string literal. */
export function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** `schema.table` or `table` (schema public) → quoted `"schema"."table"`. */
export function qualifiedTable(t: string): string {
  const dot = t.indexOf('.');
  const [schema, name] = dot < 0 ? ['public', t] : [t.slice(0, dot), t.slice(dot + 1)];
  if (name === '') throw new UsageError(`--from-table "${t}" names no table: give schema.table`);
  return `${quoteIdent(schema)}.${quoteIdent(name)}`;
}

/** The SQL that re-inserts `table`'s current rows (Note [Seeds from a table]). */
export async function seedFromTable(api: EngineApi, database: string, kind: string, table: string): Promise<string> {
  const q = qualifiedTable(table);
  const r = await api.runSql(database, kind, `SELECT coalesce(jsonb_agg(to_jsonb(t)), '[]'::jsonb)::text FROM ${q} AS t`);
  const json = r.result?.[1]?.[0] ?? '[]';
  return `INSERT INTO ${q}\nSELECT * FROM jsonb_populate_recordset(NULL::${q}, ${sqlString(json)});\n`;
}

/** Writes a new seed file; answers its path. */
export async function createSeed(seedsDir: string, database: string, name: string, sql: string): Promise<string> {
  if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new UsageError(`seed name "${name}" may hold only letters, digits, "_" and "-"`);
  const dir = path.join(seedsDir, database);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${newVersion()}_${name}.sql`);
  await writeFile(file, sql);
  return file;
}

/** Applies the seed files of `database` (all, or those named in `only`), in file-name order. */
export async function applySeeds(api: EngineApi, io: Io, seedsDir: string, database: string, kind: string, only: readonly string[]): Promise<string[]> {
  const dir = path.join(seedsDir, database);
  const all = existsSync(dir) ? (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort() : [];
  const files = only.length === 0 ? all : only.map((f) => path.basename(f));
  for (const f of files) if (!all.includes(f)) throw new UsageError(`no seed file ${f} in ${dir}`);
  for (const [i, f] of files.entries()) {
    io.progress(`[${i + 1}/${files.length}] seed ${f} on database ${database}`);
    try {
      await api.runSql(database, kind, await readFile(path.join(dir, f), 'utf8'));
    } catch (e) {
      throw new StepError(`seed ${f} failed on database ${database}: ${databaseMessage(e)}\nNothing of it was applied.`, { database, file: f });
    }
  }
  return files;
}
