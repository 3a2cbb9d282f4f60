/**
 * PostgreSQL introspection of functions: the part of the one catalog query
 * per source (see introspect.ts) that lists the functions of user schemas
 * with their input arguments, return type, volatility and comment.
 */
import type { IntrospectedFunction, TypeCategory } from '../introspection.ts';

/**
 * A JSON array of every plain function (not aggregates or procedures) outside
 * the system schemas. Input arguments are IN, INOUT and VARIADIC ones; with
 * OUT arguments present, `proallargtypes`/`proargmodes` say which are which.
 */
export const FUNCTIONS_JSON_SQL = `
SELECT coalesce(json_agg(f), '[]') FROM (
  SELECT
    n.nspname AS schema,
    p.proname AS name,
    p.oid::int8 AS oid,
    p.provolatile::text AS volatility,
    p.proretset AS returns_set,
    rn.nspname AS return_schema,
    rt.typname AS return_type,
    rt.typtype::text AS return_typtype,
    rcn.nspname AS return_table_schema,
    rc.relname AS return_table_name,
    p.pronargs AS nargs,
    p.pronargdefaults AS nargdefaults,
    (SELECT coalesce(json_agg(json_build_object(
        'name', a.argname,
        'type', t.typname,
        'element_type', et.typname,
        'typtype', t.typtype::text
      ) ORDER BY a.ord), '[]')
      FROM unnest(
        coalesce(p.proallargtypes, p.proargtypes::oid[]),
        coalesce(p.proargmodes, array_fill('i'::"char", ARRAY[p.pronargs::int])),
        p.proargnames
      ) WITH ORDINALITY AS a(typ, mode, argname, ord)
      JOIN pg_catalog.pg_type t ON t.oid = a.typ
      LEFT JOIN pg_catalog.pg_type et ON et.oid = t.typelem AND t.typcategory = 'A'
      WHERE a.mode IN ('i', 'b', 'v')) AS args,
    obj_description(p.oid, 'pg_proc') AS comment
  FROM pg_catalog.pg_proc p
  JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
  JOIN pg_catalog.pg_type rt ON rt.oid = p.prorettype
  JOIN pg_catalog.pg_namespace rn ON rn.oid = rt.typnamespace
  LEFT JOIN pg_catalog.pg_class rc ON rc.oid = rt.typrelid AND rt.typrelid <> 0
  LEFT JOIN pg_catalog.pg_namespace rcn ON rcn.oid = rc.relnamespace
  WHERE p.prokind = 'f'
    AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'engine_metadata', 'engine_live')
    AND n.nspname NOT LIKE 'pg\\_toast%'
    AND n.nspname NOT LIKE 'pg\\_temp\\_%'
) f`;

/** One function as {@link FUNCTIONS_JSON_SQL} returns it. */
export interface RawFunction {
  schema: string;
  name: string;
  oid: number;
  volatility: string;
  returns_set: boolean;
  return_schema: string;
  return_type: string;
  return_typtype: string;
  return_table_schema: string | null;
  return_table_name: string | null;
  nargs: number;
  nargdefaults: number;
  args: Array<{ name: string | null; type: string; element_type: string | null; typtype: string }>;
  comment: string | null;
}

const VOLATILITY: Record<string, IntrospectedFunction['volatility']> = { i: 'immutable', s: 'stable', v: 'volatile' };

/** Turns the raw rows into functions keyed by `schema.name` (overloads share a key). */
export function toFunctions(raw: readonly RawFunction[], typeCategory: (typtype: string) => TypeCategory): Map<string, IntrospectedFunction[]> {
  const out = new Map<string, IntrospectedFunction[]>();
  for (const r of raw) {
    const firstDefault = r.args.length - Number(r.nargdefaults);
    const fn: IntrospectedFunction = {
      name: { schema: r.schema, name: r.name },
      oid: Number(r.oid),
      volatility: VOLATILITY[r.volatility] ?? 'volatile',
      returnsSet: r.returns_set,
      returnType: { schema: r.return_schema, name: r.return_type, typeCategory: typeCategory(r.return_typtype) },
      returnTable: r.return_table_schema === null || r.return_table_name === null ? null : { schema: r.return_table_schema, name: r.return_table_name },
      args: r.args.map((a, i) => ({
        name: a.name === null || a.name === '' ? null : a.name,
        dbType: a.type,
        elementType: a.element_type,
        typeCategory: typeCategory(a.typtype),
        hasDefault: i >= firstDefault,
      })),
      comment: r.comment,
    };
    const key = `${r.schema}.${r.name}`;
    const list = out.get(key);
    if (list === undefined) out.set(key, [fn]);
    else list.push(fn);
  }
  return out;
}
