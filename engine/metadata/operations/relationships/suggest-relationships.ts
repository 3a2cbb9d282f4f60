/**
 * `<prefix>_suggest_relationships` (v2: Hasura.RQL.DDL.Relationship.Suggest):
 * the relationships the foreign keys between tracked tables offer, which
 * v2's console lists as "suggested relationships".
 *
 * Note [Suggested relationships]
 * v2 answers `{relationships: [{type, from: {table, columns, constraint_name?},
 * to: {table, columns, constraint_name?}}]}`: for every foreign key of a
 * tracked table to a tracked table, an object relationship from the table
 * holding the key (`from.constraint_name` is the key's name) and its reverse
 * from the referenced table (`to.constraint_name`), an object relationship
 * when the key's columns are a unique constraint of their table (the primary
 * key is not one, as in v2's table cache) and an array relationship
 * otherwise. `tables` keeps the keys whose table or referenced table it
 * lists; `omit_tracked` leaves out a key whose table already has a
 * relationship to the referenced table over the same column mapping (both
 * suggestions go: v2 looks at the holding table only). v2 lists keys in hash
 * order; Engine by table, then key name, columns in the key's order.
 * Suggestions carry no names: v2's console makes them.
 */
import { tableKey, type QualifiedName, type TableInfo } from '../../../catalog/types.ts';
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import type { TableNameInput } from '../../../model/document.ts';
import { suggestRelationshipsArgs } from '../../../model/schemas/args.ts';
import { defineSourceOperation, requireSource } from '../../define.ts';
import { argPath } from '../../operation.ts';

interface SuggestArgs {
  source?: string;
  tables?: readonly TableNameInput[] | null;
  omit_tracked?: boolean;
}

function sameMapping(a: ReadonlyArray<readonly [string, string]>, b: ReadonlyArray<readonly [string, string]>): boolean {
  const key = (m: ReadonlyArray<readonly [string, string]>): string => JSON.stringify([...m].map(([l, r]) => `${l}\u0000${r}`).sort());
  return key(a) === key(b);
}

export const suggestRelationships = defineSourceOperation<SuggestArgs>({
  mutates: false,
  schema: suggestRelationshipsArgs,
  async run(ctx, args, call, on) {
    const sourceName = args.source ?? 'default';
    requireSource(ctx, sourceName, call);
    const source = ctx.state.catalog.sources.get(sourceName);
    if (source === undefined) {
      throw new EngineError(ErrorCode.Unexpected, `source with name "${sourceName}" is inconsistent`, { path: argPath(call, 'source'), status: 400 });
    }
    const wanted = args.tables === undefined || args.tables === null ? null : new Set(args.tables.map((t) => tableKey(on.naming.parse(t))));
    const listed = (n: QualifiedName): boolean => wanted === null || wanted.has(tableKey(n));
    const wire = (n: QualifiedName): unknown => on.naming.toWire(n);
    const tables = [...source.tables.values()].sort((a, b) => (tableKey(a.name) < tableKey(b.name) ? -1 : tableKey(a.name) > tableKey(b.name) ? 1 : 0));
    const out: unknown[] = [];
    for (const t of tables) {
      for (const fk of [...t.foreignKeys].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        const related: TableInfo | undefined = source.tables.get(tableKey(fk.target));
        if (related === undefined || !(listed(t.name) || listed(fk.target))) continue;
        const tracked = t.relationships.some((r) => tableKey(r.target) === tableKey(fk.target) && sameMapping(r.columnMapping, fk.columnMapping));
        if (args.omit_tracked === true && tracked) continue;
        const local = fk.columnMapping.map(([l]) => l);
        const remote = fk.columnMapping.map(([, r]) => r);
        const unique = t.uniqueConstraints.some((u) => u.columns.length === local.length && local.every((c) => u.columns.includes(c)));
        out.push(
          { type: 'object', from: { table: wire(t.name), columns: local, constraint_name: fk.name }, to: { table: wire(fk.target), columns: remote } },
          {
            type: unique ? 'object' : 'array',
            from: { table: wire(fk.target), columns: remote },
            to: { table: wire(t.name), columns: local, constraint_name: fk.name },
          },
        );
      }
    }
    return await Promise.resolve({ response: { relationships: out } });
  },
});
