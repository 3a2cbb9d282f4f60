/**
 * Root fields → one Postgres statement. Every query root field of a source
 * goes into one `SELECT json_build_object('alias', (...), ...)::text`, so a
 * request is one round trip and the database builds the whole `data` object.
 * See Note [Select shape] in translate/select.ts.
 */
import type * as ir from '../../ir/index.ts';
import { compileFragment, param, sql, type CompiledSql, type Fragment } from '../sql/fragment.ts';
import { POSTGRES_DIALECT } from './dialect.ts';
import { jsonObject } from './json.ts';
import { AliasCounter } from './translate/context.ts';
import { translateAggregate, translateConnectionSelect, translateSelect } from './translate/select.ts';

function rootValue(f: ir.QueryRootField, aliases: AliasCounter): Fragment {
  switch (f.kind) {
    case 'select':
      return translateSelect(f.select, null, aliases);
    case 'aggregate':
      return translateAggregate(f.select, null, aliases);
    case 'connection':
      return translateConnectionSelect(f.select, null, aliases);
    case 'static':
      return param({ kind: 'const', value: f.json }, 'json');
    case 'namespace': {
      // A read namespace holds only read fields; the planner sends write namespaces to the mutation plan.
      const inner = f.fields.filter((x): x is ir.QueryRootField => x.kind !== 'mutation');
      return jsonObject(inner.map((x) => ({ key: x.alias, value: rootValue(x, aliases) })));
    }
  }
}

/** The statement whose single text value is the JSON object of `fields`, in order. */
export function compileQuery(fields: readonly ir.QueryRootField[]): CompiledSql {
  const aliases = new AliasCounter();
  const obj = jsonObject(fields.map((f) => ({ key: f.alias, value: rootValue(f, aliases) })));
  return compileFragment(sql`SELECT ${obj}::text`, POSTGRES_DIALECT);
}

/**
 * The statement whose single text value is one read root field's JSON (a
 * tracked function exposed as a mutation runs this inside the mutation's transaction).
 */
export function compileReadField(f: ir.DbRootField): CompiledSql {
  return compileFragment(sql`SELECT (${rootValue(f, new AliasCounter())})::text`, POSTGRES_DIALECT);
}

/** `EXPLAIN (FORMAT JSON)` of a compiled statement; its one value is the plan as JSON text. */
export function compileExplain(stmt: CompiledSql): CompiledSql {
  return { ...stmt, text: `EXPLAIN (FORMAT JSON) ${stmt.text}` };
}
