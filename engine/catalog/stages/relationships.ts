/**
 * Stage "relationships": every `using` form of an object or array
 * relationship → local/remote column pairs. v2 compat (spec, "Relationship
 * `using`"):
 * - object, `foreign_key_constraint_on: col | [cols]`: the foreign key of this
 *   table over those columns;
 * - object or array, `foreign_key_constraint_on: {table, columns | column}`:
 *   the foreign key of the remote table over `columns` pointing to this table
 *   (`column` is the deprecated singular);
 * - `manual_configuration`: the given mapping, checked against both tables.
 */
import type { IntrospectedForeignKey } from '../../backends/introspection.ts';
import type { TableNaming } from '../../backends/backend.ts';
import { sameTable, type RelationshipMetadata, type RelationshipUsing, type RemoteForeignKey, type TableMetadata } from '../../model/document.ts';
import { CatalogMemo, recording, type Read } from '../memo.ts';
import { sourceInconsistency } from '../inconsistency.ts';
import { tableKey, type InconsistentObject, type QualifiedName, type RelationshipInfo } from '../types.ts';
import type { ResolvedSource } from './sources.ts';
import type { StageResult } from './stage.ts';
import { isSchemaName, type TableDraft } from './tables.ts';
import type { TablesBySource } from './tracked-tables.ts';

/** Looks up a consistent table of the same source; `inDocument` tells whether it is tracked at all. */
export interface TableLookup {
  table(name: QualifiedName): TableDraft | undefined;
  isTracked(name: QualifiedName): boolean;
  /** Foreign keys of any relation in the source (tracked or not), or undefined when it does not exist. */
  foreignKeys(name: QualifiedName): readonly IntrospectedForeignKey[] | undefined;
}

function isRemoteForeignKey(fk: RelationshipUsing['foreign_key_constraint_on']): fk is RemoteForeignKey {
  return typeof fk === 'object' && !Array.isArray(fk);
}

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((c) => b.includes(c));
}

function quoteList(cols: readonly string[]): string {
  return cols.map((c) => `"${c}"`).join(', ');
}

function targetTable(name: QualifiedName, lookup: TableLookup, naming: TableNaming): TableDraft | string {
  const t = lookup.table(name);
  if (t !== undefined) return t;
  return lookup.isTracked(name) ? `table "${naming.format(name)}" is inconsistent` : `table "${naming.format(name)}" is not tracked`;
}

/** Resolves one relationship of `table`, or says why it is inconsistent. */
export function resolveRelationship(
  kind: 'object' | 'array',
  rel: RelationshipMetadata,
  table: TableDraft,
  lookup: TableLookup,
): RelationshipInfo | { reason: string } {
  const naming = table.naming;
  const fail = (why: string): { reason: string } => ({
    reason: `in table "${naming.format(table.entry.table)}": in relationship "${rel.name}": ${why}`,
  });
  if (!isSchemaName(rel.name)) return fail(`"${rel.name}" is not a valid GraphQL name`);
  const ownColumns = new Set(table.columns.map((c) => c.name));
  const comment = rel.comment ?? null;
  const fk = rel.using.foreign_key_constraint_on;
  const manual = rel.using.manual_configuration;
  if (fk !== undefined && !isRemoteForeignKey(fk)) {
    const cols: readonly string[] = typeof fk === 'string' ? [fk] : fk;
    if (kind === 'array') return fail('an array relationship needs foreign_key_constraint_on: {table, columns}');
    const missing = cols.filter((c) => !ownColumns.has(c));
    if (missing.length > 0) return fail(`columns ${quoteList(missing)} do not exist`);
    const found = table.introspected.foreignKeys.find((k) =>
      sameColumns(
        k.columnMapping.map(([l]) => l),
        cols,
      ),
    );
    if (found === undefined) return fail(`no foreign constraint exists on the given column(s) ${quoteList(cols)}`);
    const target = targetTable(found.target, lookup, naming);
    if (typeof target === 'string') return fail(target);
    return { name: rel.name, kind, target: found.target, columnMapping: found.columnMapping, comment, viaLocalForeignKey: true };
  }
  if (isRemoteForeignKey(fk)) {
    const remote = naming.parse(fk.table);
    const cols = fk.columns === undefined ? (fk.column === undefined ? [] : [fk.column]) : typeof fk.columns === 'string' ? [fk.columns] : fk.columns;
    if (cols.length === 0) return fail('foreign_key_constraint_on needs "columns"');
    const keys = lookup.foreignKeys(remote);
    if (keys === undefined) return fail(`table "${naming.format(remote)}" does not exist`);
    const target = targetTable(remote, lookup, naming);
    if (typeof target === 'string') return fail(target);
    const remoteCols = new Set(target.columns.map((c) => c.name));
    const missing = cols.filter((c) => !remoteCols.has(c));
    if (missing.length > 0) return fail(`columns ${quoteList(missing)} do not exist in table "${naming.format(remote)}"`);
    const found = keys.find(
      (k) =>
        sameTable(k.target, table.entry.table) &&
        sameColumns(
          k.columnMapping.map(([l]) => l),
          cols,
        ),
    );
    if (found === undefined) {
      return fail(`no foreign constraint exists on the given column(s) ${quoteList(cols)} of table "${naming.format(remote)}" referencing this table`);
    }
    const mapping = found.columnMapping.map(([remoteCol, localCol]) => [localCol, remoteCol] as const);
    return { name: rel.name, kind, target: remote, columnMapping: mapping, comment, viaLocalForeignKey: false };
  }
  if (manual !== undefined) {
    const remote = naming.parse(manual.remote_table);
    const target = targetTable(remote, lookup, naming);
    if (typeof target === 'string') return fail(target);
    const remoteCols = new Set(target.columns.map((c) => c.name));
    const mapping = Object.entries(manual.column_mapping);
    if (mapping.length === 0) return fail('column_mapping is empty');
    const missingLocal = mapping.map(([l]) => l).filter((c) => !ownColumns.has(c));
    if (missingLocal.length > 0) return fail(`columns ${quoteList(missingLocal)} do not exist`);
    const missingRemote = mapping.map(([, r]) => r).filter((c) => !remoteCols.has(c));
    if (missingRemote.length > 0) {
      return fail(`columns ${quoteList(missingRemote)} do not exist in table "${naming.format(remote)}"`);
    }
    return {
      name: rel.name,
      kind,
      target: remote,
      columnMapping: mapping.map(([l, r]) => [l, r] as const),
      comment,
      // v2 compat: manual object relationships insert the remote row first unless `insertion_order: after_parent`.
      viaLocalForeignKey: kind === 'object' && manual.insertion_order !== 'after_parent',
    };
  }
  return fail('"using" needs foreign_key_constraint_on or manual_configuration');
}

/** A table's relationships by name. */
export type TableRelationships = ReadonlyMap<string, RelationshipInfo>;

/** Per source, the relationships of each consistent table by `schema.name`. */
export type RelationshipsBySource = ReadonlyMap<ResolvedSource, ReadonlyMap<string, TableRelationships>>;

/** A table's relationships and the inconsistent ones, as the memo keeps them (Note [Catalog memo]). */
interface TableRelationshipsResult {
  readonly rels: TableRelationships | null;
  readonly bad: readonly InconsistentObject[];
}

/** No relationships: one object, so that tables without any compare equal from build to build. */
const NO_RELATIONSHIPS: TableRelationships = new Map();

/** Resolves the object and array relationships of every tracked table; `memo`: Note [Catalog memo]. */
export function resolveRelationships(tablesBySource: TablesBySource, memo = new CatalogMemo()): StageResult<RelationshipsBySource> {
  const bad: InconsistentObject[] = [];
  const out = new Map<ResolvedSource, Map<string, TableRelationships>>();
  const results = memo.stage<TableMetadata, TableRelationshipsResult>('relationships');
  for (const [s, { tables, tracked }] of tablesBySource) {
    const bySource = new Map<string, TableRelationships>();
    // Every read of another table, keyed `kind\0schema.name`, so a memoized result can be checked by replaying them.
    const answer = (k: string): unknown => {
      const key = k.slice(2);
      switch (k[0]) {
        case 't':
          return tables.get(key);
        case 'k':
          return tracked.has(key);
        default:
          return s.prepared.introspection.tables.get(key)?.foreignKeys;
      }
    };
    for (const entry of s.meta.tables) {
      const key = tableKey(entry.table);
      const draft = tables.get(key);
      const deps = [draft, s.meta.name, s.backend];
      let r = results.reuse(entry, deps, answer);
      if (r === undefined) {
        const reads: Read[] = [];
        const lookup: TableLookup = {
          table: recording(
            reads,
            (n) => `t\0${tableKey(n)}`,
            (k) => answer(k) as TableDraft | undefined,
          ),
          isTracked: recording(
            reads,
            (n) => `k\0${tableKey(n)}`,
            (k) => answer(k) as boolean,
          ),
          foreignKeys: recording(
            reads,
            (n) => `f\0${tableKey(n)}`,
            (k) => answer(k) as readonly IntrospectedForeignKey[] | undefined,
          ),
        };
        r = results.keep(entry, deps, tableRelationships(s, entry, draft, lookup), reads);
      }
      bad.push(...r.bad);
      if (r.rels !== null) bySource.set(key, r.rels);
    }
    out.set(s, bySource);
  }
  return { output: out, inconsistencies: bad };
}

/** The relationships of one tracked table (`draft` undefined: the table is inconsistent). */
function tableRelationships(s: ResolvedSource, entry: TableMetadata, draft: TableDraft | undefined, lookup: TableLookup): TableRelationshipsResult {
  const bad: InconsistentObject[] = [];
  const rels = new Map<string, RelationshipInfo>();
  const lists = [
    ['object', entry.object_relationships],
    ['array', entry.array_relationships],
  ] as const;
  for (const [kind, list] of lists) {
    for (const rel of list) {
      const ref = { kind: `${kind}_relation`, source: s.meta.name, table: entry.table, name: rel.name } as const;
      const definition = { name: rel.name, source: s.meta.name, comment: rel.comment ?? null, table: entry.table, using: rel.using };
      if (draft === undefined) {
        bad.push(sourceInconsistency(s.backend.naming, ref, definition, `table "${s.backend.naming.format(entry.table)}" is inconsistent`));
        continue;
      }
      if (rels.has(rel.name) || draft.columns.some((c) => c.name === rel.name || c.gqlName === rel.name)) {
        bad.push(
          sourceInconsistency(
            s.backend.naming,
            ref,
            definition,
            `in table "${draft.naming.format(entry.table)}": column/relationship "${rel.name}" already exists`,
          ),
        );
        continue;
      }
      const r = resolveRelationship(kind, rel, draft, lookup);
      if ('reason' in r) bad.push(sourceInconsistency(s.backend.naming, ref, definition, r.reason));
      else rels.set(rel.name, r);
    }
  }
  return { rels: draft === undefined ? null : rels.size === 0 ? NO_RELATIONSHIPS : rels, bad };
}
