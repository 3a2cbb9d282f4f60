/**
 * Introspection of a BigQuery source's routines (v2's `getRoutines` in
 * Meta.hs): each dataset's functions from the routines API (routines.list,
 * then routines.get for each, as routines.list leaves out the arguments and
 * return types on BigQuery). Procedures are left out, as PostgreSQL
 * introspection leaves them out.
 *
 * Note [BigQuery routines]
 * v2 reads routines only for computed fields: its BigQuery `buildFunctionInfo`
 * refuses every tracked function ("SQL Functions are not supported for
 * BigQuery source"), and a computed field must be a TABLE_VALUED_FUNCTION
 * whose arguments all have names and types. A table-valued function returns
 * a set of rows of no named table (`returnTable` is null: v2 takes the table
 * from the computed field's `return_table`); when declared with `RETURNS
 * TABLE<...>` its columns are `returnColumns`. An `ANY TYPE` argument has no
 * data type: its dbType is `ANY TYPE`, category pseudo. BigQuery's
 * `determinismLevel` gives the volatility (unset: volatile).
 */
import { createHash } from 'node:crypto';
import type { IntrospectedFunction, IntrospectedFunctionArg } from '../introspection.ts';
import type { BigQueryConnection } from './connection.ts';
import { canonicalType } from './scalars.ts';

/** A `StandardSqlDataType` of the REST API. */
export interface RestSqlType {
  readonly typeKind?: string;
  readonly arrayElementType?: RestSqlType;
}

/** A routine as routines.get answers it (the fields read here). */
export interface RestRoutine {
  readonly routineReference?: { readonly datasetId?: string; readonly routineId?: string };
  readonly routineType?: string;
  readonly arguments?: ReadonlyArray<{ readonly name?: string; readonly argumentKind?: string; readonly mode?: string; readonly dataType?: RestSqlType }>;
  readonly returnType?: RestSqlType;
  readonly returnTableType?: { readonly columns?: ReadonlyArray<{ readonly name?: string; readonly type?: RestSqlType }> };
  readonly determinismLevel?: string;
  readonly description?: string;
}

function typeOf(t: RestSqlType | undefined): { dbType: string; elementType: string | null; typeCategory: IntrospectedFunctionArg['typeCategory'] } {
  if (t?.typeKind === undefined) return { dbType: 'ANY TYPE', elementType: null, typeCategory: 'pseudo' };
  const kind = canonicalType(t.typeKind);
  if (kind === 'ARRAY')
    return {
      dbType: 'ARRAY',
      elementType: t.arrayElementType?.typeKind === undefined ? null : canonicalType(t.arrayElementType.typeKind),
      typeCategory: 'base',
    };
  return { dbType: kind, elementType: null, typeCategory: kind === 'STRUCT' ? 'composite' : 'base' };
}

function oidOf(dataset: string, name: string): number {
  return createHash('sha1').update(`routine:${dataset}.${name}`).digest().readUInt32BE(0) & 0x7fffffff;
}

/** One routine as an introspected function; null for a procedure or a routine without a reference. */
export function routineToFunction(r: RestRoutine): IntrospectedFunction | null {
  const dataset = r.routineReference?.datasetId;
  const name = r.routineReference?.routineId;
  if (dataset === undefined || name === undefined) return null;
  if (r.routineType !== 'TABLE_VALUED_FUNCTION' && r.routineType !== 'SCALAR_FUNCTION') return null;
  const tableValued = r.routineType === 'TABLE_VALUED_FUNCTION';
  const returned = typeOf(r.returnType);
  return {
    name: { schema: dataset, name },
    oid: oidOf(dataset, name),
    volatility: r.determinismLevel === 'DETERMINISTIC' ? 'immutable' : 'volatile',
    returnsSet: tableValued,
    returnType: tableValued
      ? { schema: '', name: 'TABLE', typeCategory: 'composite' }
      : { schema: '', name: returned.dbType, typeCategory: returned.typeCategory },
    returnTable: null,
    ...(r.returnTableType?.columns === undefined
      ? {}
      : {
          returnColumns: r.returnTableType.columns.map((c) => {
            const t = typeOf(c.type);
            return { name: c.name ?? null, dbType: t.dbType, elementType: t.elementType };
          }),
        }),
    args: (r.arguments ?? [])
      .filter((a) => a.mode === undefined || a.mode === 'IN' || a.mode === 'INOUT')
      .map((a) => ({ name: a.name === undefined || a.name === '' ? null : a.name, ...typeOf(a.dataType), hasDefault: false })),
    comment: r.description ?? null,
  };
}

/** The functions of one dataset, keyed by `dataset.name` (BigQuery has no overloads: one per key). */
export async function introspectRoutines(conn: BigQueryConnection, datasetId: string): Promise<Map<string, IntrospectedFunction[]>> {
  const out = new Map<string, IntrospectedFunction[]>();
  const [routines] = await conn.client.dataset(datasetId).getRoutines();
  for (const routine of routines) {
    const [meta] = (await routine.getMetadata()) as [RestRoutine, unknown];
    const fn = routineToFunction(meta);
    if (fn !== null) out.set(`${fn.name.schema}.${fn.name.name}`, [fn]);
  }
  return out;
}
