/**
 * Root fields → one BigQuery statement: `SELECT TO_JSON_STRING(STRUCT(<field>
 * AS alias, ...)) AS j`, so a request is one query job per source and BigQuery
 * builds the whole `data` object (Note [BigQuery select shape] in
 * translate/select.ts). Mutations are refused: BigQuery sources are
 * read-only, as in v2.
 */
import type * as ir from '../../ir/index.ts';
import { UNKNOWN_TARGET, type CompileTarget, type CompiledMutation } from '../backend.ts';
import { compileFragment, ident, join, param, sql, type CompiledSql, type Fragment } from '../sql/fragment.ts';
import { BIGQUERY_DIALECT } from './dialect.ts';
import { Ctx, unsupported } from './translate/context.ts';
import { translateAggregate, translateSelect } from './translate/select.ts';

function rootValue(f: ir.QueryRootField, ctx: Ctx): Fragment {
  switch (f.kind) {
    case 'select':
      if (f.stream !== undefined) throw unsupported('streaming subscriptions');
      return translateSelect(f.select, null, ctx, true);
    case 'aggregate':
      return translateAggregate(f.select, null, ctx);
    case 'connection':
      throw unsupported('Relay');
    case 'static':
      return param({ kind: 'const', value: f.json }, null, { dbType: 'JSON', list: false });
    case 'namespace': {
      const inner = f.fields.filter((x): x is ir.QueryRootField => x.kind !== 'mutation');
      return struct(inner, ctx);
    }
  }
}

function struct(fields: readonly ir.QueryRootField[], ctx: Ctx): Fragment {
  return sql`STRUCT(${join(
    fields.map((f) => sql`${rootValue(f, ctx)} AS ${ident(f.alias)}`),
    ', ',
  )})`;
}

/** The statement whose single value is the JSON object of `fields`, in order. */
export function compileQuery(fields: readonly ir.QueryRootField[], target: CompileTarget = UNKNOWN_TARGET): CompiledSql {
  const ctx = new Ctx(target);
  return compileFragment(sql`SELECT TO_JSON_STRING(${struct(fields, ctx)}) AS ${ident('j')}`, BIGQUERY_DIALECT);
}

/** The statement whose single value is one read root field's JSON. */
export function compileReadField(f: ir.DbRootField, target: CompileTarget = UNKNOWN_TARGET): CompiledSql {
  return compileFragment(sql`SELECT TO_JSON_STRING(${rootValue(f, new Ctx(target))}) AS ${ident('j')}`, BIGQUERY_DIALECT);
}

/** BigQuery sources have no mutations (Capabilities.mutations is false, so the schema offers none). */
export function compileMutation(): CompiledMutation {
  throw unsupported('mutations');
}

/** BigQuery has no EXPLAIN: the plan is an empty list, the statement's text is still shown. */
export function compileExplain(stmt: CompiledSql): CompiledSql {
  void stmt;
  return { text: "SELECT '[]' AS j", params: [], paramTypes: [] };
}
