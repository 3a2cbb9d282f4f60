/**
 * What a source's database holds, tracked or not, for user interfaces (the
 * console's Data, Permissions and Events pages): `<prefix>_get_source_tables`
 * (every table and view), `<prefix>_get_table_info` (one with its columns,
 * keys and mutability, null when there is none) and
 * `<prefix>_get_source_trackables` (tables and functions). Read-only, admin
 * only like every metadata call. See Note [Source tables from introspection].
 */
import type { Backend, WireTableName } from '../../../backends/backend.ts';
import type { IntrospectedColumn, IntrospectedTable, SourceIntrospection } from '../../../backends/introspection.ts';
import type { QualifiedName } from '../../../catalog/types.ts';
import { tableKey } from '../../../catalog/types.ts';
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineOperation, requireSource } from '../../define.ts';
import type { TableNameInput } from '../../../model/document.ts';
import { argPath, type MetadataCall, type Operation, type RunContext } from '../../operation.ts';
import { getSourceTablesArgs, getTableInfoArgs } from '../../../model/schemas/args.ts';

/*
 * Note [Source tables from introspection]
 * v2 answers these by querying the database on each call (listAllTables,
 * getTableInfo). The engine answers from the source's introspection, which
 * every metadata request first brings up to date with the database (Note
 * [Introspection freshness] in backends/source-preparer.ts): a table made a
 * moment ago by psql or a migration is listed, and no SQL runs here, so the
 * operations work for every backend that introspects. The console used to
 * read these facts with `pg_catalog` SQL through `run_sql`, which only
 * PostgreSQL understands.
 *
 * Shapes are v2's: `get_source_tables` a list of table names (v2 orders them
 * by schema, then name, and leaves out its own `hdb_catalog`: the engine
 * leaves out its own `engine_*` schemas); `get_table_info` v2's
 * SourceTableInfo (`name`, `type` table or view, `columns` with `name`,
 * `type` as v2 prints it, `nullable`, `insertable`, `updatable`, optional
 * `description`; `primary_key`; `foreign_keys` by constraint name with
 * `foreign_table` and `column_mapping`; `insertable`, `updatable`,
 * `deletable`; optional `description`), or null for an unknown table.
 * Additions, where v2 has nothing to say for postgres: a column's
 * `value_generated` (the Data Connector vocabulary: `auto_increment` for
 * identity and sequence defaults, `default_value` for other defaults), and
 * `get_source_trackables`, which v2 refuses for postgres ("listAllTrackables
 * not supported by Postgres") and answers for Data Connectors as
 * `{tables: [{name}], functions: [{name, volitility}]}` (sic), the shape used
 * here. docs/compat.md lists these.
 */

type WireName = Exclude<WireTableName, string>;

interface SourceArgs {
  source: string;
}

interface TableInfoArgs extends SourceArgs {
  table: TableNameInput;
}

/** The engine's own schemas (event log, live-query triggers, metadata): never offered, as v2 leaves out `hdb_catalog`. */
function isEngineSchema(schema: string): boolean {
  return schema.startsWith('engine_');
}

/** v2 orders by schema, then name. */
function byName(a: QualifiedName, b: QualifiedName): number {
  return a.schema < b.schema ? -1 : a.schema > b.schema ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * The introspection of source `name`: `not-exists` when there is no such
 * source; v2 compat: `unexpected` (400) when it is inconsistent (its database
 * could not be reached or introspected), with the reason.
 */
function introspectionOf(ctx: RunContext, name: string, call: MetadataCall): SourceIntrospection {
  requireSource(ctx, name, call);
  const p = ctx.state.prepared.get(name);
  if (p === undefined || !p.ok) {
    const why = p === undefined ? '' : `: ${p.reason}`;
    throw new EngineError(ErrorCode.Unexpected, `source with name "${name}" is inconsistent${why}`, { path: argPath(call, 'source'), status: 400 });
  }
  return p.introspection;
}

/** The tables of a source as v2 lists them: named as its backend prints names (`{schema, name}`, BigQuery `{dataset, name}`), ordered, without the engine's own. */
function listedTables(backend: Backend, i: SourceIntrospection): WireName[] {
  return [...i.tables.values()]
    .map((t) => t.name)
    .filter((n) => !isEngineSchema(n.schema))
    .sort(byName)
    .map((n) => backend.naming.toWire(n));
}

/** v2's ColumnValueGenerationStrategy of a column, if it has a default. */
function valueGenerated(c: IntrospectedColumn): { type: 'auto_increment' | 'default_value' } | undefined {
  if (c.identity === 'always' || c.identity === 'by-default' || /^nextval\(/i.test(c.defaultSql ?? '')) return { type: 'auto_increment' };
  return c.hasDefault && !c.isGenerated ? { type: 'default_value' } : undefined;
}

/** v2's SourceTableInfo of an introspected table. */
function tableInfo(backend: Backend, t: IntrospectedTable): Record<string, unknown> {
  const typeText = (c: IntrospectedColumn) => backend.typeText?.(c) ?? c.dbType;
  const columns = t.columns.map((c) => {
    const generated = valueGenerated(c);
    return {
      name: c.name,
      type: typeText(c),
      nullable: c.nullable,
      ...(c.comment === null ? {} : { description: c.comment }),
      insertable: t.mutability.insertable && !c.isGenerated,
      updatable: t.mutability.updatable && !c.isGenerated,
      ...(generated === undefined ? {} : { value_generated: generated }),
    };
  });
  const foreignKeys = Object.fromEntries(
    t.foreignKeys.map((fk) => [
      fk.name,
      { foreign_table: backend.naming.toWire(fk.target), column_mapping: Object.fromEntries(fk.columnMapping.map(([l, r]) => [l, r])) },
    ]),
  );
  const isView = t.kind === 'view' || t.kind === 'materialized_view';
  return {
    name: backend.naming.toWire(t.name),
    type: isView ? 'view' : 'table',
    columns,
    ...(t.primaryKey === null || t.primaryKey.columns.length === 0 ? {} : { primary_key: [...t.primaryKey.columns] }),
    foreign_keys: foreignKeys,
    ...(t.comment === null ? {} : { description: t.comment }),
    insertable: t.mutability.insertable,
    updatable: t.mutability.updatable,
    deletable: t.mutability.deletable,
  };
}

/** v2's FunctionVolatility as JSON. */
const VOLATILITY = { immutable: 'IMMUTABLE', stable: 'STABLE', volatile: 'VOLATILE' } as const;

const made = {
  tables: new WeakMap<Backend, Operation>(),
  info: new WeakMap<Backend, Operation>(),
  trackables: new WeakMap<Backend, Operation>(),
};

function memo(map: WeakMap<Backend, Operation>, backend: Backend, make: () => Operation): Operation {
  let op = map.get(backend);
  if (op === undefined) {
    op = make();
    map.set(backend, op);
  }
  return op;
}

/** `<prefix>_get_source_tables`: every table and view of the source, tracked or not. */
export function getSourceTablesFor(backend: Backend): Operation {
  return memo(made.tables, backend, () =>
    defineOperation<SourceArgs>({
      mutates: false,
      schema: getSourceTablesArgs,
      run: async (ctx, args, call) => await Promise.resolve({ response: listedTables(backend, introspectionOf(ctx, args.source, call)) }),
    }),
  );
}

/** `<prefix>_get_table_info`: one table or view of the source, tracked or not; null when the database has none of that name. */
export function getTableInfoFor(backend: Backend): Operation {
  return memo(made.info, backend, () =>
    defineOperation<TableInfoArgs>({
      mutates: false,
      schema: getTableInfoArgs,
      async run(ctx, args, call) {
        const i = introspectionOf(ctx, args.source, call);
        const t = i.tables.get(tableKey(backend.naming.parse(args.table)));
        return await Promise.resolve({ response: t === undefined ? null : tableInfo(backend, t) });
      },
    }),
  );
}

/** `<prefix>_get_source_trackables` (an engine answer where v2 refuses postgres): tables and functions of the source. */
export function getSourceTrackablesFor(backend: Backend): Operation {
  return memo(made.trackables, backend, () =>
    defineOperation<SourceArgs>({
      mutates: false,
      schema: getSourceTablesArgs,
      async run(ctx, args, call) {
        const i = introspectionOf(ctx, args.source, call);
        const functions = [...(i.functions?.values() ?? [])]
          .flat()
          .filter((f) => !isEngineSchema(f.name.schema))
          .sort((a, b) => byName(a.name, b.name))
          .map((f) => ({ name: backend.naming.toWire(f.name), volitility: VOLATILITY[f.volatility] }));
        return await Promise.resolve({ response: { tables: listedTables(backend, i).map((name) => ({ name })), functions } });
      },
    }),
  );
}
