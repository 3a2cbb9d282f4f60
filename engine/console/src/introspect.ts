/**
 * What the database has (tables, views, columns, keys, functions), tracked or
 * not, from the engine's own introspection: `<prefix>_get_source_trackables`
 * lists tables and functions, then one `bulk` of `<prefix>_get_table_info`
 * describes every table (v2's metadata operations; Note [Source tables from
 * introspection] in engine/metadata/operations/tables/get-source-tables.ts).
 * No SQL is sent, so it works for every kind of source; the engine leaves out
 * its own `engine_*` schemas.
 */
import { metadata } from './api.ts';
import { operationPrefix, qualifiedName } from './source-kinds.ts';

export interface DbColumn {
  readonly name: string;
  /** The type as v2's metadata API prints it (`integer`, `text[]`, `numeric`). */
  readonly type: string;
  readonly nullable: boolean;
  /** The database fills it when an insert leaves it out (a default, identity or sequence). */
  readonly hasDefault: boolean;
}

export interface DbTable {
  readonly schema: string;
  readonly name: string;
  readonly kind: 'table' | 'view';
  readonly columns: DbColumn[];
  readonly primaryKey: string[];
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
  readonly volatility: string;
}

export interface DbInfo {
  readonly tables: DbTable[];
  readonly foreignKeys: DbForeignKey[];
  readonly functions: DbFunction[];
}

/** A name as the engine answers it: `{schema, name}`, or BigQuery's `{dataset, name}`. */
interface WireName {
  readonly schema?: string;
  readonly dataset?: string;
  readonly name: string;
}

/** v2's `get_source_trackables` answer. */
interface Trackables {
  readonly tables: ReadonlyArray<{ readonly name: WireName }>;
  readonly functions: ReadonlyArray<{ readonly name: WireName; readonly volitility: string }>;
}

/** v2's `get_table_info` answer (null: the table is gone). */
type TableInfo = {
  readonly name: WireName;
  readonly type: 'table' | 'view';
  readonly columns: ReadonlyArray<{ readonly name: string; readonly type: string; readonly nullable: boolean; readonly value_generated?: unknown }>;
  readonly primary_key?: readonly string[];
  readonly foreign_keys: Readonly<Record<string, { readonly foreign_table: WireName; readonly column_mapping: Readonly<Record<string, string>> }>>;
} | null;

/** What the database of `source` (of `kind`, from the metadata) holds. */
export async function introspect(source: string, kind: string): Promise<DbInfo> {
  const prefix = operationPrefix(kind);
  const named = (n: WireName) => qualifiedName(kind, n) ?? { schema: '', name: n.name };
  const trackables = await metadata<Trackables>(`${prefix}_get_source_trackables`, { source });
  const calls = trackables.tables.map((t) => ({ type: `${prefix}_get_table_info`, args: { source, table: t.name } }));
  const infos = calls.length === 0 ? [] : await metadata<TableInfo[]>('bulk', calls);
  const tables: DbTable[] = [];
  const foreignKeys: DbForeignKey[] = [];
  for (const info of infos) {
    // A table dropped between the two requests answers null.
    if (info === null) continue;
    const { schema, name } = named(info.name);
    tables.push({
      schema,
      name,
      kind: info.type,
      columns: info.columns.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable, hasDefault: c.value_generated !== undefined })),
      primaryKey: [...(info.primary_key ?? [])],
    });
    for (const [fkName, fk] of Object.entries(info.foreign_keys)) {
      const pairs = Object.entries(fk.column_mapping);
      foreignKeys.push({
        name: fkName,
        schema,
        table: name,
        columns: pairs.map(([l]) => l),
        ref_schema: named(fk.foreign_table).schema,
        ref_table: fk.foreign_table.name,
        ref_columns: pairs.map(([, r]) => r),
      });
    }
  }
  // Overloads share a name, and functions are tracked by name: one row each.
  const functions = new Map<string, DbFunction>();
  for (const f of trackables.functions) {
    const { schema, name } = named(f.name);
    const key = `${schema}.${name}`;
    if (!functions.has(key)) functions.set(key, { schema, name, volatility: f.volitility.toLowerCase() });
  }
  return { tables, foreignKeys, functions: [...functions.values()] };
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

const INTEGER_TYPES = ['smallint', 'integer', 'bigint', 'oid'];
const FLOAT_TYPES = ['real', 'float8'];
const NUMBER_TYPES = [...INTEGER_TYPES, ...FLOAT_TYPES, 'numeric'];
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** The digits of a decimal that matter for its precision (no sign, point, exponent, leading or trailing zeros). */
function significantDigits(text: string): number {
  const mantissa = text.replace(/^[+-]/, '').replace(/e.*$/i, '').replace('.', '');
  return mantissa.replace(/^0+/, '').replace(/0+$/, '').length;
}

/** The text typed for a column, as a JSON value of the column's type, or why it is not one. */
export function parseValue(column: DbColumn | undefined, text: string): Parsed {
  const t = column?.type ?? 'text';
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
    return FLOAT_TYPES.includes(t) ? bad('a number in the range of its type') : { ok: true, value: s };
  }
  if (t === 'boolean') {
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
