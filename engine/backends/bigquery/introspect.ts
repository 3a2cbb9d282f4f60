/**
 * Introspection of a BigQuery source: the tables and views of its datasets,
 * from the API (datasets.get, tables.list, tables.get for each schema), as
 * v2's Meta.hs reads them, and their routines (introspect-routines.ts). Top-level fields are columns: a RECORD field is
 * one `STRUCT` column and a REPEATED field one `ARRAY` column (its element
 * type in `elementType`), whose values come back whole as JSON, as v2 maps
 * them. BigQuery has no keys and no stable table ids; the oid is a hash of
 * the name. A dataset that does not exist fails the introspection, so the
 * source is inconsistent.
 */
import { createHash } from 'node:crypto';
import type { Introspector } from '../backend.ts';
import type { IntrospectedColumn, IntrospectedFunction, IntrospectedTable, RelationKind, SourceIntrospection } from '../introspection.ts';
import type { BigQueryConnection } from './connection.ts';
import { introspectRoutines } from './introspect-routines.ts';
import { canonicalType } from './scalars.ts';

/** A field of a table schema, as the REST API gives it. */
interface RestField {
  readonly name: string;
  readonly type: string;
  readonly mode?: string;
  readonly description?: string;
}

function column(f: RestField, position: number): IntrospectedColumn {
  const repeated = f.mode === 'REPEATED';
  const base = canonicalType(f.type);
  return {
    name: f.name,
    position,
    dbType: repeated ? 'ARRAY' : base,
    elementType: repeated ? base : null,
    typeCategory: base === 'STRUCT' ? 'composite' : 'base',
    enumLabels: null,
    nullable: f.mode !== 'REQUIRED' && !repeated,
    hasDefault: false,
    isGenerated: false,
    comment: f.description ?? null,
  };
}

function kindOf(type: string | undefined): RelationKind {
  if (type === 'VIEW') return 'view';
  if (type === 'MATERIALIZED_VIEW') return 'materialized_view';
  if (type === 'EXTERNAL') return 'foreign_table';
  return 'table';
}

function oidOf(dataset: string, name: string): number {
  return createHash('sha1').update(`${dataset}.${name}`).digest().readUInt32BE(0) & 0x7fffffff;
}

/** Everything trackable in the source's datasets. */
export async function introspectBigQuery(conn: BigQueryConnection): Promise<SourceIntrospection> {
  const tables = new Map<string, IntrospectedTable>();
  const functions = new Map<string, IntrospectedFunction[]>();
  for (const datasetId of conn.settings.datasets) {
    const dataset = conn.client.dataset(datasetId);
    const [exists] = await dataset.exists();
    if (!exists) throw new Error(`dataset "${datasetId}" does not exist in project "${conn.settings.projectId}"`);
    const [list] = await dataset.getTables();
    for (const t of list) {
      const [meta] = (await t.getMetadata()) as [{ type?: string; description?: string; schema?: { fields?: RestField[] } }, unknown];
      const name = t.id ?? '';
      const readOnly = { insertable: false, updatable: false, deletable: false };
      tables.set(`${datasetId}.${name}`, {
        name: { schema: datasetId, name },
        oid: oidOf(datasetId, name),
        kind: kindOf(meta.type),
        comment: meta.description ?? null,
        columns: (meta.schema?.fields ?? []).map((f, i) => column(f, i + 1)),
        primaryKey: null,
        uniqueConstraints: [],
        foreignKeys: [],
        mutability: readOnly,
      });
    }
    for (const [key, fns] of await introspectRoutines(conn, datasetId)) functions.set(key, fns);
  }
  const fingerprint = createHash('sha256')
    .update(JSON.stringify([[...tables.values()], [...functions.values()]]))
    .digest('hex');
  return { tables, functions, fingerprint, ddlStamp: fingerprint };
}

/** Introspection on a BigQuery source: no DDL stamp (it is read afresh), no enum tables (v2 has none on BigQuery). */
export function bigqueryIntrospector(conn: BigQueryConnection): Introspector {
  return {
    introspect: () => introspectBigQuery(conn),
    enumRows: (queries) => Promise.resolve(queries.map(() => new Error('BigQuery tables cannot be enum tables'))),
  };
}
