/**
 * PostgreSQL introspection: one catalog query per source returning every
 * table, view and similar relation with columns, keys and mutability, and
 * every function (introspect-functions.ts), built as JSON by the database. No per-table queries, so hundreds of tables stay fast.
 */
import { createHash } from 'node:crypto';
import type { QualifiedName } from '../../catalog/types.ts';
import type { EnumTableQuery, EnumTableRows, IntrospectedTable, RelationKind, SourceIntrospection, TypeCategory } from '../introspection.ts';
import { queryFirstText, type PgQueryable } from './connection.ts';
import { DATABASE_IDENTITY_SQL, DDL_STAMP_SQL } from './ddl-stamp.ts';
import { FUNCTIONS_JSON_SQL, toFunctions, type RawFunction } from './introspect-functions.ts';

/** Schemas never offered for tracking: system schemas and the engine's own metadata schema. */
const TABLES_JSON_SQL = `
SELECT coalesce(json_agg(t), '[]') FROM (
  SELECT
    n.nspname AS schema,
    c.relname AS name,
    c.oid::int8 AS oid,
    c.relkind::text AS relkind,
    obj_description(c.oid, 'pg_class') AS comment,
    (SELECT coalesce(json_agg(json_build_object(
        'name', a.attname,
        'position', a.attnum,
        'type', ty.typname,
        'element_type', et.typname,
        'typtype', ty.typtype::text,
        'enum_labels', (SELECT json_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_catalog.pg_enum e WHERE e.enumtypid = ty.oid),
        'nullable', NOT a.attnotnull,
        'has_default', a.atthasdef OR a.attidentity <> '',
        'generated', a.attgenerated <> '' OR a.attidentity = 'a',
        'comment', col_description(c.oid, a.attnum),
        'default_sql', (SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid) FROM pg_catalog.pg_attrdef d
                        WHERE a.atthasdef AND a.attgenerated = '' AND d.adrelid = a.attrelid AND d.adnum = a.attnum),
        'identity', a.attidentity::text
      ) ORDER BY a.attnum), '[]')
      FROM pg_catalog.pg_attribute a
      JOIN pg_catalog.pg_type ty ON ty.oid = a.atttypid
      LEFT JOIN pg_catalog.pg_type et ON et.oid = ty.typelem AND ty.typcategory = 'A'
      WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns,
    (SELECT coalesce(json_agg(json_build_object(
        'name', con.conname,
        'contype', con.contype::text,
        'target_schema', tn.nspname,
        'target_name', tc.relname,
        'columns', (SELECT json_agg(la.attname ORDER BY k.ord)
                    FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
                    JOIN pg_catalog.pg_attribute la ON la.attrelid = con.conrelid AND la.attnum = k.attnum),
        'target_columns', (SELECT json_agg(ra.attname ORDER BY k.ord)
                    FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, ord)
                    JOIN pg_catalog.pg_attribute ra ON ra.attrelid = con.confrelid AND ra.attnum = k.attnum)
      ) ORDER BY con.conname), '[]')
      FROM pg_catalog.pg_constraint con
      LEFT JOIN pg_catalog.pg_class tc ON tc.oid = con.confrelid
      LEFT JOIN pg_catalog.pg_namespace tn ON tn.oid = tc.relnamespace
      WHERE con.conrelid = c.oid AND con.contype IN ('p', 'u', 'f')) AS constraints,
    CASE WHEN c.relkind IN ('v', 'f') THEN pg_catalog.pg_relation_is_updatable(c.oid, false)
         WHEN c.relkind IN ('r', 'p') THEN 28 ELSE 0 END AS updatable_bits
  FROM pg_catalog.pg_class c
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'v', 'm', 'f', 'p')
    AND NOT c.relispartition
    AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'engine_metadata')
    AND n.nspname NOT LIKE 'pg\\_toast%'
    AND n.nspname NOT LIKE 'pg\\_temp\\_%'
) t`;

/**
 * The one catalog query: the DDL stamp of the same snapshot, a newline, the
 * database's identity (Note [Database identity]), a newline, then the server
 * version, tables and functions in one JSON object.
 */
const INTROSPECTION_SQL = `SELECT (${DDL_STAMP_SQL}) || E'\\n' || ${DATABASE_IDENTITY_SQL} || E'\\n' || json_build_object('server_version', current_setting('server_version_num')::int, 'tables', (${TABLES_JSON_SQL}), 'functions', (${FUNCTIONS_JSON_SQL}))::text`;

/**
 * The version of what {@link introspectPostgres} returns, part of the key of
 * a stored introspection (Note [Stored introspection] in ../source-preparer.ts):
 * BUMP IT whenever this file or introspect-functions.ts changes the objects
 * made from a row (toTable, toFunctions, a field added or read otherwise),
 * or a start would use an introspection in the old shape. The query text is
 * hashed in below, so a changed query needs no bump.
 */
const INTROSPECTION_FORMAT_VERSION = 1;

/** {@link INTROSPECTION_FORMAT_VERSION} and a digest of the query. */
export const INTROSPECTION_FORMAT = `pg-${INTROSPECTION_FORMAT_VERSION}-${createHash('sha1').update(INTROSPECTION_SQL).digest('hex').slice(0, 16)}`;

/**
 * Note [Minimum PostgreSQL version]
 * 12 (as v2): the compiler needs generated-column catalog fields (attgenerated),
 * `WITH .. AS MATERIALIZED` and jsonb_populate_record; nothing in translate/
 * uses JSON functions newer than that (no JSON_TABLE, IS JSON, json_scalar).
 * MERGE .. RETURNING (17) is used only when the server has it (Note
 * [Correlated nested inserts] in translate/insert.ts). A source below 12 is
 * refused when it is introspected, so it is reported inconsistent with the
 * reason instead of failing queries later.
 */
export const MIN_SERVER_VERSION = 120000;

interface RawColumn {
  name: string;
  position: number;
  type: string;
  element_type: string | null;
  typtype: string;
  enum_labels: string[] | null;
  nullable: boolean;
  has_default: boolean;
  generated: boolean;
  comment: string | null;
  default_sql?: string | null;
  identity?: string;
}

interface RawConstraint {
  name: string;
  contype: 'p' | 'u' | 'f';
  target_schema: string | null;
  target_name: string | null;
  columns: string[] | null;
  target_columns: string[] | null;
}

interface RawRelation {
  schema: string;
  name: string;
  oid: number;
  relkind: string;
  comment: string | null;
  columns: RawColumn[];
  constraints: RawConstraint[];
  updatable_bits: number;
}

const RELKINDS: Record<string, RelationKind> = {
  r: 'table',
  v: 'view',
  m: 'materialized_view',
  f: 'foreign_table',
  p: 'partitioned_table',
};

const TYPTYPES: Record<string, TypeCategory> = {
  b: 'base',
  e: 'enum',
  c: 'composite',
  d: 'domain',
  r: 'range',
  p: 'pseudo',
  m: 'multirange',
};

// pg_relation_is_updatable bits: 1 << CMD_UPDATE(2), 1 << CMD_INSERT(3), 1 << CMD_DELETE(4).
const UPDATE_BIT = 4;
const INSERT_BIT = 8;
const DELETE_BIT = 16;

/** Key of a relation in {@link SourceIntrospection.tables}. */
function relationKey(n: QualifiedName): string {
  return `${n.schema}.${n.name}`;
}

function toTable(r: RawRelation): IntrospectedTable {
  const pk = r.constraints.find((c) => c.contype === 'p');
  return {
    name: { schema: r.schema, name: r.name },
    oid: Number(r.oid),
    kind: RELKINDS[r.relkind] ?? 'table',
    comment: r.comment,
    columns: r.columns.map((c) => ({
      name: c.name,
      position: c.position,
      dbType: c.type,
      elementType: c.element_type,
      typeCategory: TYPTYPES[c.typtype] ?? 'base',
      enumLabels: c.enum_labels,
      nullable: c.nullable,
      hasDefault: c.has_default,
      isGenerated: c.generated,
      comment: c.comment,
      defaultSql: c.default_sql ?? null,
      identity: c.identity === 'a' ? 'always' : c.identity === 'd' ? 'by-default' : null,
    })),
    primaryKey: pk === undefined ? null : { name: pk.name, columns: pk.columns ?? [] },
    uniqueConstraints: r.constraints.filter((c) => c.contype === 'u').map((c) => ({ name: c.name, columns: c.columns ?? [] })),
    foreignKeys: r.constraints
      .filter((c) => c.contype === 'f' && c.target_schema !== null && c.target_name !== null)
      .map((c) => {
        const local = c.columns ?? [];
        const remote = c.target_columns ?? [];
        return {
          name: c.name,
          target: { schema: c.target_schema ?? '', name: c.target_name ?? '' },
          columnMapping: local.map((l, i) => [l, remote[i] ?? ''] as const),
        };
      }),
    mutability: {
      insertable: (r.updatable_bits & INSERT_BIT) !== 0,
      updatable: (r.updatable_bits & UPDATE_BIT) !== 0,
      deletable: (r.updatable_bits & DELETE_BIT) !== 0,
    },
  };
}

/*
 * Note [Slices keep the row's text]
 * V8 makes a substring of 13 characters or more a slice that points into the
 * string it was cut from, and keeps all of that string alive while the slice
 * lives. The stamp and identity cut from the introspection row lived as long
 * as the introspection, so they kept the whole row text (4.4 MB at 2,000
 * tables, an external string outside the V8 heap) for the life of the
 * engine: the heap snapshot of `node --expose-gc test/bench/schema-memory.ts
 * 2000 10 --snapshot <dir>` showed it retained by `ddlStamp` (a "sliced
 * string"). So both are copied into strings of their own.
 */
/** `s` in a string of its own, not a slice of a longer one (Note [Slices keep the row's text]). */
export function ownCopy(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}

/** Introspects every trackable relation of the database behind `q` in one query. */
export async function introspectPostgres(q: PgQueryable): Promise<SourceIntrospection> {
  const both = (await queryFirstText(q, INTROSPECTION_SQL)) ?? '';
  const cut = both.indexOf('\n');
  const cut2 = both.indexOf('\n', cut + 1);
  // Copies, not slices: Note [Slices keep the row's text].
  const stamp = ownCopy(both.slice(0, cut));
  const identity = ownCopy(both.slice(cut + 1, cut2));
  const text = both.slice(cut2 + 1);
  const raw = JSON.parse(text) as { server_version?: number; tables?: RawRelation[]; functions?: RawFunction[] };
  const serverVersion = raw.server_version;
  if (serverVersion !== undefined && serverVersion < MIN_SERVER_VERSION) {
    // Note [Minimum PostgreSQL version]
    throw new Error(`PostgreSQL ${versionText(serverVersion)} is not supported: the engine needs PostgreSQL ${versionText(MIN_SERVER_VERSION)} or later`);
  }
  const tables = new Map<string, IntrospectedTable>();
  for (const r of raw.tables ?? []) {
    const t = toTable(r);
    tables.set(relationKey(t.name), t);
  }
  const functions = toFunctions(raw.functions ?? [], (t) => TYPTYPES[t] ?? 'base');
  // The stamp is left out of the fingerprint: it also moves with changes introspection does not report.
  const fingerprint = createHash('sha1').update(text).digest('hex');
  return {
    tables,
    functions,
    fingerprint,
    ddlStamp: stamp,
    ...(serverVersion === undefined ? {} : { serverVersion }),
    ...(identity === '' ? {} : { identity }),
  };
}

/** 160004 → "16.4"; 90624 → "9.6.24" (before 10 the minor number had two digits). */
function versionText(v: number): string {
  const major = Math.floor(v / 10000);
  return major >= 10 ? `${major}.${v % 10000}` : `${major}.${Math.floor(v / 100) % 100}.${v % 100}`;
}

/** Quotes an identifier for PostgreSQL. */
function quoteIdent(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

/** json_build_object takes at most 100 arguments, so 50 key/value pairs per statement. */
const ENUM_CHUNK = 40;

/**
 * Reads the rows of several enum tables in one statement. The result is keyed
 * like the input (index order); a table that cannot be read gets an Error.
 */
export async function fetchEnumTableRows(q: PgQueryable, queries: readonly EnumTableQuery[]): Promise<(EnumTableRows | Error)[]> {
  if (queries.length === 0) return [];
  if (queries.length > ENUM_CHUNK) {
    const out: (EnumTableRows | Error)[] = [];
    for (let i = 0; i < queries.length; i += ENUM_CHUNK) {
      out.push(...(await fetchEnumTableRows(q, queries.slice(i, i + ENUM_CHUNK))));
    }
    return out;
  }
  const parts = queries.map((e, i) => {
    const table = `${quoteIdent(e.table.schema)}.${quoteIdent(e.table.name)}`;
    const value = quoteIdent(e.valueColumn);
    const comment = e.commentColumn === null ? 'NULL' : `${quoteIdent(e.commentColumn)}::text`;
    return `'${i}', (SELECT coalesce(json_agg(json_build_object('value', ${value}::text, 'comment', ${comment}) ORDER BY ${value}), '[]') FROM ${table})`;
  });
  try {
    const text = await queryFirstText(q, `SELECT json_build_object(${parts.join(', ')})::text`);
    const obj = JSON.parse(text ?? '{}') as Record<string, EnumTableRows>;
    return queries.map((_, i) => obj[String(i)] ?? []);
  } catch (e) {
    if (queries.length === 1) return [e instanceof Error ? e : new Error(String(e))];
    // One unreadable table must not hide the others: fall back to one statement each.
    const out: (EnumTableRows | Error)[] = [];
    for (const one of queries) {
      const [r] = await fetchEnumTableRows(q, [one]);
      out.push(r ?? new Error('no result'));
    }
    return out;
  }
}
