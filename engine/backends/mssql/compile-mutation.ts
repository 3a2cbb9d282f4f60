/**
 * A mutation root field → one T-SQL batch (Note [MSSQL mutations] in
 * translate/written.ts); `update_<t>_many` is one batch per entry, in order,
 * so a later entry sees the rows an earlier one changed.
 */
import type * as ir from '../../ir/index.ts';
import type { CompiledMutation, CompileTarget, MutationStatement } from '../backend.ts';
import { compileFragment, type Fragment } from '../sql/fragment.ts';
import { MSSQL_DIALECT } from './dialect.ts';
import { AliasCounter } from './translate/context.ts';
import { translateInsert } from './translate/insert.ts';
import { translateDelete, translateUpdate } from './translate/update.ts';
import { batch, createWritten, outputSelect } from './translate/written.ts';

function statement(table: ir.QualifiedName, writes: (aliases: AliasCounter) => Fragment[], output: ir.MutationOutput): MutationStatement {
  const aliases = new AliasCounter();
  const body = writes(aliases);
  return { sql: compileFragment(batch([createWritten(table), ...body, outputSelect(output, aliases)]), MSSQL_DIALECT), output: true };
}

function update(u: ir.Update, target: CompileTarget): MutationStatement {
  return statement(u.table, (a) => translateUpdate(u, target, a), u.output);
}

/** Compiles one mutation root field. */
export function compileMutation(m: ir.Mutation, target: CompileTarget): CompiledMutation {
  switch (m.kind) {
    case 'insert':
      return { statements: [statement(m.insert.root.table, (a) => translateInsert(m.insert, target, a), m.insert.output)], list: false };
    case 'update':
      return { statements: [update(m.update, target)], list: false };
    case 'update-many':
      return { statements: m.updates.map((u) => update(u, target)), list: true };
    case 'delete':
      return { statements: [statement(m.delete.table, (a) => translateDelete(m.delete, a), m.delete.output)], list: false };
  }
}
