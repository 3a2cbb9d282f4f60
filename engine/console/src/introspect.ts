/**
 * What the database has (tables, views, columns, keys, functions), read with
 * one read-only `run_sql` per source: the public API has no call that lists
 * untracked objects, and v2's console does the same. Schemas of PostgreSQL
 * itself and the engine's own (`engine_*`) are left out.
 */
import { runSql } from './api.ts';

export interface DbColumn {
  readonly name: string;
  readonly type: string;
  readonly udt: string;
  readonly nullable: boolean;
  readonly default: string | null;
}

export interface DbTable {
  readonly schema: string;
  readonly name: string;
  /** r table, v view, m materialized view, f foreign table, p partitioned table */
  readonly kind: string;
  readonly columns: DbColumn[];
  primaryKey: string[];
}

export interface DbForeignKey {
  readonly name: string;
  readonly schema: string;
  readonly table: string;
  readonly columns: string[];
  readonly ref_schema: string;
  readonly ref_table: string;
  readonly ref_columns: string[];
}

export interface DbFunction {
  readonly schema: string;
  readonly name: string;
  readonly args: string;
  readonly returns: string;
}

export interface DbInfo {
  readonly tables: DbTable[];
  readonly foreignKeys: DbForeignKey[];
  readonly functions: DbFunction[];
}

const USER_SCHEMA = (alias: string) =>
  `${alias} NOT IN ('pg_catalog', 'information_schema') AND ${alias} NOT LIKE 'pg\\_toast%' AND ${alias} NOT LIKE 'pg\\_temp%' AND ${alias} NOT LIKE 'engine\\_%'`;

const SQL = `
SELECT json_build_object(
  'tables', (SELECT coalesce(json_agg(json_build_object('schema', n.nspname, 'name', c.relname, 'kind', c.relkind) ORDER BY n.nspname, c.relname), '[]')
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE c.relkind IN ('r', 'v', 'm', 'f', 'p') AND NOT c.relispartition AND ${USER_SCHEMA('n.nspname')}),
  'columns', (SELECT coalesce(json_agg(json_build_object('schema', table_schema, 'table', table_name, 'name', column_name, 'type', data_type, 'udt', udt_name,
                                                         'nullable', is_nullable = 'YES', 'default', column_default) ORDER BY table_schema, table_name, ordinal_position), '[]')
              FROM information_schema.columns WHERE ${USER_SCHEMA('table_schema')}),
  'keys', (SELECT coalesce(json_agg(json_build_object(
             'type', con.contype, 'name', con.conname, 'schema', n.nspname, 'table', c.relname,
             'columns', (SELECT json_agg(a.attname ORDER BY k.i) FROM unnest(con.conkey) WITH ORDINALITY k(attnum, i)
                         JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum),
             'ref_schema', rn.nspname, 'ref_table', rc.relname,
             'ref_columns', (SELECT json_agg(a.attname ORDER BY k.i) FROM unnest(con.confkey) WITH ORDINALITY k(attnum, i)
                             JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum))), '[]')
           FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
           LEFT JOIN pg_class rc ON rc.oid = con.confrelid LEFT JOIN pg_namespace rn ON rn.oid = rc.relnamespace
           WHERE con.contype IN ('p', 'f') AND ${USER_SCHEMA('n.nspname')}),
  'functions', (SELECT coalesce(json_agg(json_build_object('schema', n.nspname, 'name', p.proname, 'args', pg_get_function_arguments(p.oid),
                                                           'returns', pg_get_function_result(p.oid)) ORDER BY n.nspname, p.proname), '[]')
                FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE p.prokind = 'f' AND ${USER_SCHEMA('n.nspname')}
                  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e'))
)::text`;

interface Raw {
  tables: Array<{ schema: string; name: string; kind: string }>;
  columns: Array<DbColumn & { schema: string; table: string }>;
  keys: Array<{
    type: 'p' | 'f';
    name: string;
    schema: string;
    table: string;
    columns: string[];
    ref_schema: string | null;
    ref_table: string | null;
    ref_columns: string[] | null;
  }>;
  functions: DbFunction[];
}

export async function introspect(source: string): Promise<DbInfo> {
  const r = await runSql(SQL, { source, readOnly: true });
  const raw = JSON.parse(r.result?.[1]?.[0] ?? '{}') as Raw;
  const byKey = new Map<string, DbTable>();
  const tables = raw.tables.map((t) => {
    const table: DbTable = { ...t, columns: [], primaryKey: [] };
    byKey.set(`${t.schema}.${t.name}`, table);
    return table;
  });
  for (const c of raw.columns)
    byKey.get(`${c.schema}.${c.table}`)?.columns.push({ name: c.name, type: c.type, udt: c.udt, nullable: c.nullable, default: c.default });
  const foreignKeys: DbForeignKey[] = [];
  for (const k of raw.keys) {
    if (k.type === 'p') {
      const t = byKey.get(`${k.schema}.${k.table}`);
      if (t !== undefined) t.primaryKey = k.columns;
    } else if (k.ref_schema !== null && k.ref_table !== null && k.ref_columns !== null) {
      foreignKeys.push({
        name: k.name,
        schema: k.schema,
        table: k.table,
        columns: k.columns,
        ref_schema: k.ref_schema,
        ref_table: k.ref_table,
        ref_columns: k.ref_columns,
      });
    }
  }
  return { tables, foreignKeys, functions: raw.functions };
}

/**
 * Note [Typed text becomes a value once]
 * What a person types into a value field (a row filter's condition, a column preset, a grid cell)
 * stays the field's state as typed; it becomes a JSON value of the column's type only when it is
 * used (saved, applied), by `parseValue`. Converting on every keystroke and showing the result
 * back corrupted the text while it was typed: `9.` read as 9 made `9.99` into `999`, `t` read as
 * true made `true` into `truerue`. Text that is not a value of the type is refused with the
 * reason, never sent as something else (`abc` as a string for a number column, `0x10` as 16).
 * A number that a JavaScript number would not hold exactly (more than 15 significant digits, or
 * beyond its range) is sent as its text for integer and numeric columns, which the engine accepts.
 */
export type Parsed = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: string };

const INTEGER_TYPES = ['int2', 'int4', 'int8', 'oid'];
const NUMBER_TYPES = [...INTEGER_TYPES, 'float4', 'float8', 'numeric'];
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** The digits of a decimal that matter for its precision (no sign, point, exponent, leading or trailing zeros). */
function significantDigits(text: string): number {
  const mantissa = text.replace(/^[+-]/, '').replace(/e.*$/i, '').replace('.', '');
  return mantissa.replace(/^0+/, '').replace(/0+$/, '').length;
}

/** The text typed for a column, as a JSON value of the column's type, or why it is not one. */
export function parseValue(column: DbColumn | undefined, text: string): Parsed {
  const t = column?.udt ?? 'text';
  const what = column === undefined ? '' : ` (column ${column.name} is ${column.type})`;
  const bad = (kind: string): Parsed => ({ ok: false, problem: `${JSON.stringify(text)} is not ${kind}${what}` });
  if (NUMBER_TYPES.includes(t)) {
    const s = text.trim();
    if (/^[+-]?(nan|infinity|inf)$/i.test(s) && !INTEGER_TYPES.includes(t)) return { ok: true, value: s };
    if (!DECIMAL.test(s)) return bad('a number');
    if (INTEGER_TYPES.includes(t) && !/^[+-]?\d+$/.test(s)) return bad('a whole number');
    const n = Number(s);
    const exact = significantDigits(s) <= 15 && Number.isFinite(n) && (n !== 0 || significantDigits(s) === 0);
    if (exact) return { ok: true, value: n };
    return t.startsWith('float') ? bad('a number in the range of its type') : { ok: true, value: s };
  }
  if (t === 'bool') {
    const s = text.trim();
    return s === 'true' ? { ok: true, value: true } : s === 'false' ? { ok: true, value: false } : bad('true or false');
  }
  if (t === 'json' || t === 'jsonb') {
    try {
      return { ok: true, value: JSON.parse(text) as unknown };
    } catch {
      return bad('JSON (a string needs its double quotes)');
    }
  }
  return { ok: true, value: text };
}

/** `parseValue`, throwing its problem (for actions that report errors in a status line). */
export function valueOf(column: DbColumn | undefined, text: string): unknown {
  const p = parseValue(column, text);
  if (!p.ok) throw new Error(p.problem);
  return p.value;
}

/** A JSON value shown in a cell. */
export function display(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}
