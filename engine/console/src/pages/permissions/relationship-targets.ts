/**
 * The target table of each relationship of a source's tracked tables, for
 * relationship conditions in the permission builder: a manual configuration
 * names its remote table, an array relationship's foreign key names the
 * table holding it, and an object relationship's foreign key columns are
 * looked up among the database's foreign keys (introspection).
 */
import type { RelationshipUsing } from '../../../../model/document.ts';
import type { DbForeignKey } from '../../introspect.ts';
import { tableKey, type SourceEntry } from '../../metadata-state.tsx';
import { qualifiedText } from '../../source-kinds.ts';

export interface RelationshipTarget {
  readonly name: string;
  /** `schema.name` of the target table. */
  readonly target: string;
}

function columnsOf(v: unknown): string[] | null {
  if (typeof v === 'string') return [v];
  return Array.isArray(v) && v.every((c) => typeof c === 'string') ? (v as string[]) : null;
}

/** The relationships of every tracked table of `source` whose target is known, by table key. */
export function relationshipTargets(source: SourceEntry, foreignKeys: readonly DbForeignKey[]): ReadonlyMap<string, readonly RelationshipTarget[]> {
  const out = new Map<string, RelationshipTarget[]>();
  for (const t of source.tables) {
    const key = tableKey(t.table);
    const list: RelationshipTarget[] = [];
    for (const r of [...(t.object_relationships ?? []), ...(t.array_relationships ?? [])]) {
      const using = r.using as RelationshipUsing;
      let target: string | null = null;
      if (using.manual_configuration !== undefined) target = qualifiedText(source.kind, using.manual_configuration.remote_table);
      const fk = using.foreign_key_constraint_on;
      const cols = columnsOf(fk);
      if (cols !== null) {
        const found = foreignKeys.find((f) => `${f.schema}.${f.table}` === key && JSON.stringify(f.columns) === JSON.stringify(cols));
        target = found === undefined ? null : `${found.ref_schema}.${found.ref_table}`;
      } else if (fk !== undefined && typeof fk === 'object' && !Array.isArray(fk)) {
        target = qualifiedText(source.kind, (fk as { table: unknown }).table);
      }
      if (target !== null) list.push({ name: r.name, target });
    }
    out.set(key, list);
  }
  return out;
}
