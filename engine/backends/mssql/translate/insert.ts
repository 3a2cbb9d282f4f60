/**
 * ir.Insert → MERGE statements writing into `[#written]` (Note [MSSQL
 * mutations] in written.ts), one per partition of the input rows (rows giving
 * the same columns: columns a row leaves out keep their defaults):
 *
 *   MERGE INTO [dbo].[t] WITH (HOLDLOCK) AS [_t]
 *   USING (SELECT [_r].[a] AS [a], [_p].[b] AS [b], CAST([_j].[key] AS BIGINT) AS [__ord]
 *          FROM OPENJSON(@p1) AS [_j] CROSS APPLY OPENJSON([_j].[value]) WITH ([a] NVARCHAR(MAX) N'$."a"') AS [_r]
 *          CROSS APPLY OPENJSON(@p2) WITH ([b] ...) AS [_p]) AS [_s]
 *   ON (1 = 0)                                          -- if_matched: its match_columns
 *   WHEN MATCHED AND <where> THEN UPDATE SET [a] = [_s].[a]  -- if_matched with update_columns
 *   WHEN NOT MATCHED THEN INSERT ([a], [b]) VALUES ([_s].[a], [_s].[b])
 *   OUTPUT INSERTED.*, [_s].[__ord], $action INTO [#written];
 */
import type * as ir from '../../../ir/index.ts';
import type { CompileTarget } from '../../backend.ts';
import { ident, join, param, qualified, raw, sql, stringLiteral, type Fragment } from '../../sql/fragment.ts';
import { jsonReadType } from '../scalars.ts';
import { translateBoolExp } from './bool-exp.ts';
import { columnOf, unsupported, type AliasCounter } from './context.ts';
import { assertion, ORD, WRITTEN } from './written.ts';

const JSON_TEXT = { dbType: 'nvarchar', list: false } as const;

/** The T-SQL type `column` of `table` is read from JSON as (text when the table is not known). */
export function readTypeOf(target: CompileTarget, table: ir.QualifiedName, column: string): string {
  const c = target.table(table)?.columns.find((x) => x.name === column);
  return jsonReadType(c?.dbType ?? 'nvarchar');
}

/** `OPENJSON(json) WITH ([col] TYPE N'$."key"', ...)`: one JSON object as a row of typed columns. */
export function openJsonRow(json: Fragment, columns: readonly ir.InputColumn[], table: ir.QualifiedName, target: CompileTarget): Fragment {
  const specs = columns.map((c) => sql`${ident(c.column)} ${raw(readTypeOf(target, table, c.column))} ${stringLiteral(`$.${JSON.stringify(c.key)}`)}`);
  return sql`OPENJSON(${json}) WITH (${join(specs, ', ')})`;
}

/** Rows of the input array that give exactly the keys of `partition` among the level's input keys. */
function partitionFilter(level: ir.InsertLevel, partition: ir.InsertPartition, row: Fragment): Fragment | null {
  if (level.partitions.length <= 1) return null;
  const given = new Set(partition.columns.map((c) => c.key));
  const conds = level.inputColumns.map((c) => {
    const has = sql`EXISTS (SELECT 1 FROM OPENJSON(${row}) AS [_k] WHERE [_k].[key] = ${stringLiteral(c.key)})`;
    return given.has(c.key) ? has : sql`NOT ${has}`;
  });
  return conds.length === 0 ? null : join(conds, ' AND ');
}

/** One MERGE of one partition. */
function mergeOf(ins: ir.Insert, partition: ir.InsertPartition, target: CompileTarget, aliases: AliasCounter): Fragment {
  const level = ins.root;
  const table = level.table;
  const presets = level.presets;
  const conflict = level.onConflict;
  const source: Fragment[] = [];
  const columns: string[] = [];
  const from: Fragment[] = [sql`OPENJSON(${param(ins.rows, null, JSON_TEXT)}) AS [_j]`];
  if (partition.columns.length > 0) from.push(sql`CROSS APPLY ${openJsonRow(raw('[_j].[value]'), partition.columns, table, target)} AS [_r]`);
  const presetKeys = new Set(presets?.columns ?? []);
  for (const c of partition.columns) {
    if (presetKeys.has(c.column)) continue;
    source.push(sql`${columnOf('_r', c.column)} AS ${ident(c.column)}`);
    columns.push(c.column);
  }
  if (presets !== null) {
    const cols = presets.columns.map((c) => ({ column: c, key: c }));
    from.push(sql`CROSS APPLY ${openJsonRow(param(presets.value, null, JSON_TEXT), cols, table, target)} AS [_p]`);
    for (const c of presets.columns) {
      source.push(sql`${columnOf('_p', c)} AS ${ident(c)}`);
      columns.push(c);
    }
  }
  // The upsert's update presets win over `update_columns` on rows it updates.
  const updatePresets = conflict?.presets ?? null;
  const updates = new Map<string, Fragment>();
  for (const c of conflict?.updateColumns ?? []) if (columns.includes(c)) updates.set(c, columnOf('_s', c));
  if (updatePresets !== null && conflict !== null && conflict.updateColumns.length > 0) {
    const cols = updatePresets.columns.map((c) => ({ column: c, key: c }));
    from.push(sql`CROSS APPLY ${openJsonRow(param(updatePresets.value, null, JSON_TEXT), cols, table, target)} AS [_u]`);
    updatePresets.columns.forEach((c, i) => {
      source.push(sql`${columnOf('_u', c)} AS ${ident(`__u${i}`)}`);
      updates.set(c, columnOf('_s', `__u${i}`));
    });
  }
  source.push(sql`CAST([_j].[key] AS BIGINT) AS ${ident(ORD)}`);
  const filter = partitionFilter(level, partition, raw('[_j].[value]'));
  const using = sql`(SELECT ${join(source, ', ')} FROM ${join(from, ' ')}${filter === null ? raw('') : sql` WHERE ${filter}`}) AS [_s]`;
  let on: Fragment = raw('(1 = 0)');
  // v2 compat: `if_matched` without match_columns matches no row (all are inserted).
  if (conflict !== null && conflict.constraintColumns.length > 0) {
    // A row not giving a match column cannot be matched on it.
    const keys = conflict.constraintColumns.map((c) => (columns.includes(c) ? sql`${columnOf('_t', c)} = ${columnOf('_s', c)}` : raw('1 = 0')));
    on = sql`(${join(keys, ' AND ')})`;
  }
  const clauses: Fragment[] = [];
  if (conflict !== null && updates.size > 0) {
    const cond = conflict.where === null ? raw('') : sql` AND ${translateBoolExp(conflict.where, '_t', aliases)}`;
    const sets = [...updates].map(([c, v]) => sql`${ident(c)} = ${v}`);
    clauses.push(sql` WHEN MATCHED${cond} THEN UPDATE SET ${join(sets, ', ')}`);
  }
  clauses.push(
    columns.length === 0
      ? raw(' WHEN NOT MATCHED THEN INSERT DEFAULT VALUES')
      : sql` WHEN NOT MATCHED THEN INSERT (${join(columns.map(ident), ', ')}) VALUES (${join(
          columns.map((c) => columnOf('_s', c)),
          ', ',
        )})`,
  );
  const hint = conflict === null ? raw('') : raw(' WITH (HOLDLOCK)');
  return sql`MERGE INTO ${qualified(table.schema, table.name)}${hint} AS [_t] USING ${using} ON ${on}${join(clauses, '')} OUTPUT INSERTED.*, ${columnOf('_s', ORD)}, $action INTO ${ident(WRITTEN)};`;
}

/** The write statements and checks of an insert. */
export function translateInsert(ins: ir.Insert, target: CompileTarget, aliases: AliasCounter): Fragment[] {
  const level = ins.root;
  if (level.parents.length > 0 || level.children.length > 0) throw unsupported('a nested insert');
  const out = level.partitions.map((p) => mergeOf(ins, p, target, aliases));
  if (level.check !== null) out.push(assertion(level.check, 'INSERT', 'check constraint of an insert permission has failed', aliases));
  const update = level.onConflict?.check ?? null;
  if (update !== null) out.push(assertion(update, 'UPDATE', 'check constraint of an update permission has failed', aliases));
  return out;
}
