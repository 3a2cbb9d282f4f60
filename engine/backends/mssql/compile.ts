/**
 * Root fields → one T-SQL statement. Every query root field of a source goes
 * into one `SELECT (SELECT JSON_QUERY(<field>) AS [alias], ... FOR JSON PATH,
 * INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS [data]`: one request, and
 * SQL Server builds the whole `data` object (Note [MSSQL JSON] in translate/json.ts).
 */
import type * as ir from '../../ir/index.ts';
import { compileFragment, param, raw, sql, type CompiledSql, type Fragment } from '../sql/fragment.ts';
import { MSSQL_DIALECT } from './dialect.ts';
import { AliasCounter, unsupported } from './translate/context.ts';
import { FOR_JSON_OBJECT, jsonColumns, jsonQuery } from './translate/json.ts';
import { translateAggregate, translateSelect } from './translate/select.ts';

/**
 * A static field's JSON (`__typename`, introspection) as a column value: an
 * object or array embedded with JSON_QUERY (which reads only those), a scalar
 * as its own value, always a parameter.
 */
function staticValue(json: string): Fragment {
  const v = JSON.parse(json) as unknown;
  if (v === null) return raw('NULL');
  if (typeof v === 'object') return jsonQuery(param({ kind: 'const', value: json }, null, { dbType: 'nvarchar', list: false }));
  if (typeof v === 'string') return param({ kind: 'const', value: v }, null, { dbType: 'nvarchar', list: false });
  if (typeof v === 'boolean') return param({ kind: 'const', value: v }, null, { dbType: 'bit', list: false });
  return param({ kind: 'const', value: v }, null, { dbType: 'float', list: false });
}

/** A root field as a column value of the root object: JSON (marked so), or a scalar. */
function rootValue(f: ir.QueryRootField, aliases: AliasCounter): Fragment {
  switch (f.kind) {
    case 'select':
      return jsonQuery(translateSelect(f.select, null, aliases));
    case 'aggregate':
      return jsonQuery(translateAggregate(f.select, null, aliases));
    case 'connection':
      throw unsupported('Relay');
    case 'static':
      return staticValue(f.json);
    case 'namespace': {
      // A read namespace holds only read fields; the planner sends write namespaces to the mutation plan.
      const inner = f.fields.filter((x): x is ir.QueryRootField => x.kind !== 'mutation');
      return jsonQuery(sql`(SELECT ${rootColumns(inner, aliases)}${FOR_JSON_OBJECT})`);
    }
  }
}

function rootColumns(fields: readonly ir.QueryRootField[], aliases: AliasCounter): Fragment {
  return jsonColumns(fields.map((f) => ({ key: f.alias, value: rootValue(f, aliases) })));
}

/** The statement whose single text value is the JSON object of `fields`, in order. */
export function compileQuery(fields: readonly ir.QueryRootField[]): CompiledSql {
  const aliases = new AliasCounter();
  return compileFragment(sql`SELECT (SELECT ${rootColumns(fields, aliases)}${FOR_JSON_OBJECT}) AS [data]`, MSSQL_DIALECT);
}

/** The statement whose single text value is one read root field's JSON (run inside a mutation's transaction). */
export function compileReadField(f: ir.DbRootField): CompiledSql {
  const aliases = new AliasCounter();
  const v = f.kind === 'select' ? translateSelect(f.select, null, aliases) : f.kind === 'aggregate' ? translateAggregate(f.select, null, aliases) : null;
  if (v === null) throw unsupported(`a ${f.kind} field in a mutation`);
  return compileFragment(sql`SELECT ${v} AS [data]`, MSSQL_DIALECT);
}

/**
 * SQL Server gives a plan only to a batch of its own after `SET SHOWPLAN_XML
 * ON` (never as the value of a statement, and never as JSON), so `explain` is
 * not offered for MSSQL sources yet.
 */
export function compileExplain(_stmt: CompiledSql): CompiledSql {
  throw unsupported('explain');
}
