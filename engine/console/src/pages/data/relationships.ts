/** Relationships suggested from foreign keys between tracked tables (v2's console offers the same). */
import type { DbInfo } from '../../introspect.ts';
import type { QualifiedTable, RelationshipEntry, SourceEntry, TableEntry } from '../../metadata-state.tsx';
import { tableKey } from '../../metadata-state.tsx';
import { qualifiedName } from '../../source-kinds.ts';
import inflection from 'inflection';

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

/*
 * Note [Suggested relationship names]
 * As v2's console (`formRelName`): an object relationship is named after the target table made
 * singular, an array one after the referencing table made plural (inflection's rules). Should that
 * name be a column or relationship of the table, or one suggested before it, it falls back to
 * `<name>_by_<columns>`, then `_1`, `_2`, ... camelized by inflection, which lowercases each
 * word after the first letter (`regionByRegionCountryRegionCode`, `...Code1`). The columns are
 * the key's on the relationship's own side for an object relationship, the referencing ones for
 * an array relationship, as v2's.
 */
function relName(taken: Set<string>, kind: 'object' | 'array', target: string, columns: readonly string[]): string {
  const base = kind === 'object' ? inflection.singularize(target.trim()) : inflection.pluralize(target.trim());
  let name = base;
  for (let n = 0; taken.has(name); n++) name = inflection.camelize(`${base}_by_${columns.join('_').trim()}${n > 0 ? `_${n}` : ''}`, true);
  taken.add(name);
  return name;
}

export function suggestRelationships(db: DbInfo, source: SourceEntry): Suggestion[] {
  const tracked = new Map(source.tables.map((t) => [tableKey(t.table), t]));
  const out: Suggestion[] = [];
  // Per table: its columns and relationships, and the names suggested so far.
  const takenBy = new Map<string, Set<string>>();
  const taken = (entry: TableEntry): Set<string> => {
    const key = tableKey(entry.table);
    let set = takenBy.get(key);
    if (set === undefined) {
      const columns = db.tables.find((d) => `${d.schema}.${d.name}` === key)?.columns.map((c) => c.name) ?? [];
      set = new Set([...columns, ...[...(entry.object_relationships ?? []), ...(entry.array_relationships ?? [])].map((r) => r.name)]);
      takenBy.set(key, set);
    }
    return set;
  };
  for (const fk of db.foreignKeys) {
    const from = tracked.get(`${fk.schema}.${fk.table}`);
    const to = tracked.get(`${fk.ref_schema}.${fk.ref_table}`);
    if (from === undefined || to === undefined) continue;
    const describe = `${fk.schema}.${fk.table}(${fk.columns.join(', ')}) → ${fk.ref_schema}.${fk.ref_table}(${fk.ref_columns.join(', ')})`;
    if (!covered(source.kind, from, 'object', fk.columns, null)) {
      const col = fk.columns[0]!;
      out.push({
        kind: 'object',
        table: from.table,
        name: relName(taken(from), 'object', fk.ref_table, fk.columns),
        using: { foreign_key_constraint_on: fk.columns.length === 1 ? col : fk.columns },
        describe,
      });
    }
    const remote = { schema: fk.schema, name: fk.table };
    if (!covered(source.kind, to, 'array', fk.columns, remote)) {
      out.push({
        kind: 'array',
        table: to.table,
        name: relName(taken(to), 'array', fk.table, fk.columns),
        using: { foreign_key_constraint_on: { table: remote, columns: fk.columns } },
        describe,
      });
    }
  }
  return out;
}
