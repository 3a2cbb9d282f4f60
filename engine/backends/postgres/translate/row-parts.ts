/**
 * The pieces of a select's rows that select.ts and connection.ts both build
 * with: the FROM item, projected and read columns, __typename. They call
 * nothing back, so the two translators share them without importing each
 * other (connection.ts gets the recursive parts passed in: RowTranslator).
 */
import type * as ir from '../../../ir/index.ts';
import { ident, join, qualified, sql, type Fragment } from '../../sql/fragment.ts';
import { translateBoolExp } from './bool-exp.ts';
import { callArguments } from './computed-field.ts';
import { columnOf, type AliasCounter } from './context.ts';

/** A select nested under a row of `outer`, joined by `mapping`. */
export interface Correlation {
  readonly outer: string;
  readonly mapping: ir.ColumnMapping;
}

/** The table, or the call of the function whose rows are read (arguments by name, types from the signature). */
export function fromItem(src: ir.RowSource): Fragment {
  const fn = src.function;
  if (fn === undefined) return qualified(src.table.schema, src.table.name);
  const args = callArguments(fn.args);
  return sql`${qualified(fn.name.schema, fn.name.name)}(${join(args, ', ')})`;
}

/** A projected column of the inner subquery; a redacted one (inherited roles) is null where its condition fails. */
export function projectColumn(src: ir.RowSource, column: string, inner: string, aliases: AliasCounter): Fragment {
  const cond = src.redact?.get(column);
  if (cond === undefined) return columnOf(inner, column);
  return sql`(CASE WHEN ${translateBoolExp(cond, inner, aliases)} THEN ${columnOf(inner, column)} END) AS ${ident(column)}`;
}

/** Columns of the current row that `fields` read (values and join keys). */
export function columnsRead(fields: readonly ir.Field[], into: string[]): string[] {
  const add = (c: string): void => {
    if (!into.includes(c)) into.push(c);
  };
  for (const f of fields) {
    if (f.kind === 'column') add(f.column);
    else if (f.kind === 'node-id') for (const c of f.columns) add(c);
    else if (f.kind !== 'typename' && f.kind !== 'computed-scalar' && f.kind !== 'computed-rows' && f.kind !== 'remote-join')
      for (const [local] of f.mapping) add(local);
  }
  return into;
}

/** `'name'::text` for __typename. */
export function typenameValue(name: string): Fragment {
  return sql`${{ kind: 'string', value: name }}::text`;
}
