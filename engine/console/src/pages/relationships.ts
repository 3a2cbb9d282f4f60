/** Relationships suggested from foreign keys between tracked tables (v2's console offers the same). */
import type { DbInfo } from '../introspect.ts';
import type { QualifiedTable, RelationshipEntry, SourceEntry, TableEntry } from '../metadata-state.tsx';
import { tableKey } from '../metadata-state.tsx';
import { qualifiedName } from '../source-kinds.ts';

export interface Suggestion {
  readonly kind: 'object' | 'array';
  readonly table: QualifiedTable;
  readonly name: string;
  readonly using: Record<string, unknown>;
  /** `articles.author_id → authors.id`, for people. */
  readonly describe: string;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function fkColumns(v: unknown): string[] | null {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v as string[];
  return null;
}

/** Whether `entry` already has a relationship over this foreign key. */
function covered(sourceKind: string, entry: TableEntry, kind: 'object' | 'array', columns: string[], remote: QualifiedTable | null): boolean {
  const rels: readonly RelationshipEntry[] = (kind === 'object' ? entry.object_relationships : entry.array_relationships) ?? [];
  return rels.some((r) => {
    const on = r.using['foreign_key_constraint_on'];
    if (kind === 'object') return same(fkColumns(on), columns);
    if (typeof on !== 'object' || on === null) return false;
    const o = on as { table?: QualifiedTable | string; column?: string; columns?: string[] };
    const t = qualifiedName(sourceKind, o.table);
    return t !== null && remote !== null && tableKey(t) === tableKey(remote) && same(o.columns ?? (o.column !== undefined ? [o.column] : null), columns);
  });
}

function freeName(entry: TableEntry, wanted: string, columns: readonly string[]): string {
  const taken = new Set([...(entry.object_relationships ?? []), ...(entry.array_relationships ?? [])].map((r) => r.name));
  return taken.has(wanted) || columns.includes(wanted) ? `${wanted}_by_${columns.join('_')}` : wanted;
}

export function suggestRelationships(db: DbInfo, source: SourceEntry): Suggestion[] {
  const tracked = new Map(source.tables.map((t) => [tableKey(t.table), t]));
  const out: Suggestion[] = [];
  for (const fk of db.foreignKeys) {
    const from = tracked.get(`${fk.schema}.${fk.table}`);
    const to = tracked.get(`${fk.ref_schema}.${fk.ref_table}`);
    if (from === undefined || to === undefined) continue;
    const describe = `${fk.schema}.${fk.table}(${fk.columns.join(', ')}) → ${fk.ref_schema}.${fk.ref_table}(${fk.ref_columns.join(', ')})`;
    if (!covered(source.kind, from, 'object', fk.columns, null)) {
      const col = fk.columns[0]!;
      const wanted = fk.columns.length === 1 && col.endsWith('_id') && col.length > 3 ? col.slice(0, -3) : fk.ref_table;
      out.push({
        kind: 'object',
        table: from.table,
        name: freeName(from, wanted, fk.columns),
        using: { foreign_key_constraint_on: fk.columns.length === 1 ? col : fk.columns },
        describe,
      });
    }
    const remote = { schema: fk.schema, name: fk.table };
    if (!covered(source.kind, to, 'array', fk.columns, remote)) {
      out.push({
        kind: 'array',
        table: to.table,
        name: freeName(to, fk.table, to === from ? fk.columns : []),
        using: { foreign_key_constraint_on: { table: remote, columns: fk.columns } },
        describe,
      });
    }
  }
  return out;
}
