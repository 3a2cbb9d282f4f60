/**
 * v2 compat: `run_sql` follows renames. When SQL renames a tracked table or
 * one of its columns, the metadata is rewritten to the new names instead of
 * becoming inconsistent. Renames are recognized by object identity: the same
 * table oid under a new name, the same column position under a new name.
 */
import type { TableNaming } from '../backends/backend.ts';
import type { SourceIntrospection } from '../backends/introspection.ts';
import type { Catalog, QualifiedName } from '../catalog/types.ts';
import { tableKey } from '../catalog/types.ts';
import {
  type ManualRelationship,
  type MetadataDocument,
  type PermissionColumns,
  type RelationshipMetadata,
  type RemoteForeignKey,
  type TableMetadata,
  type TableNameInput,
} from '../model/document.ts';
import { updateSource } from './edit.ts';

/** Renames found between two introspections, keyed by the old table key (`schema.name`). */
export interface SchemaRenames {
  readonly tables: ReadonlyMap<string, QualifiedName>;
  readonly columns: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

/** Compares two introspections of one source and lists the table and column renames. */
export function detectRenames(before: SourceIntrospection, after: SourceIntrospection): SchemaRenames {
  const byOid = new Map([...before.tables.values()].map((t) => [t.oid, t]));
  const tables = new Map<string, QualifiedName>();
  const columns = new Map<string, Map<string, string>>();
  for (const t of after.tables.values()) {
    const old = byOid.get(t.oid);
    if (old === undefined) continue;
    const oldKey = tableKey(old.name);
    if (oldKey !== tableKey(t.name) && !after.tables.has(oldKey)) tables.set(oldKey, t.name);
    const oldByPos = new Map(old.columns.map((c) => [c.position, c.name]));
    const stillThere = new Set(t.columns.map((c) => c.name));
    const cols = new Map<string, string>();
    for (const c of t.columns) {
      const was = oldByPos.get(c.position);
      if (was !== undefined && was !== c.name && !stillThere.has(was)) cols.set(was, c.name);
    }
    if (cols.size > 0) columns.set(oldKey, cols);
  }
  return { tables, columns };
}

const LISTS = new Set(['_and', '$and', '_or', '$or']);
const NOTS = new Set(['_not', '$not', 'not']);
const EXISTS = new Set(['_exists', '$exists']);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Applies renames to one source's metadata; tables are named by their old names while walking. */
class Renamer {
  readonly #r: SchemaRenames;
  readonly #catalog: Catalog;
  readonly #source: string;
  readonly #naming: TableNaming;

  constructor(r: SchemaRenames, catalog: Catalog, source: string, naming: TableNaming) {
    this.#r = r;
    this.#catalog = catalog;
    this.#source = source;
    this.#naming = naming;
  }

  table(t: QualifiedName): QualifiedName {
    return this.#r.tables.get(tableKey(t)) ?? t;
  }

  tableInput(t: TableNameInput): TableNameInput {
    const q = this.#naming.parse(t);
    const n = this.#r.tables.get(tableKey(q));
    return n === undefined ? t : { schema: n.schema, name: n.name };
  }

  column(t: QualifiedName, c: string): string {
    return this.#r.columns.get(tableKey(t))?.get(c) ?? c;
  }

  keys<V>(t: QualifiedName, rec: Readonly<Record<string, V>>): Record<string, V> {
    return Object.fromEntries(Object.entries(rec).map(([k, v]) => [this.column(t, k), v]));
  }

  relationship(t: QualifiedName, rel: RelationshipMetadata): RelationshipMetadata {
    const fk = rel.using.foreign_key_constraint_on;
    const manual = rel.using.manual_configuration;
    if (typeof fk === 'string') return { ...rel, using: { foreign_key_constraint_on: this.column(t, fk) } };
    if (Array.isArray(fk)) {
      return { ...rel, using: { foreign_key_constraint_on: (fk as readonly string[]).map((c) => this.column(t, c)) } };
    }
    if (fk !== undefined) {
      const remote = fk as RemoteForeignKey;
      const r = this.#naming.parse(remote.table);
      const out: Record<string, unknown> = { ...remote, table: this.tableInput(remote.table) };
      if (typeof remote.columns === 'string') out['columns'] = this.column(r, remote.columns);
      else if (remote.columns !== undefined) out['columns'] = remote.columns.map((c) => this.column(r, c));
      if (remote.column !== undefined) out['column'] = this.column(r, remote.column);
      return { ...rel, using: { foreign_key_constraint_on: out as unknown as RemoteForeignKey } };
    }
    if (manual !== undefined) {
      const r = this.#naming.parse(manual.remote_table);
      const mapping = Object.fromEntries(Object.entries(manual.column_mapping).map(([l, rc]) => [this.column(t, l), this.column(r, rc)]));
      const next: ManualRelationship = { ...manual, remote_table: this.tableInput(manual.remote_table), column_mapping: mapping };
      return { ...rel, using: { manual_configuration: next } };
    }
    return rel;
  }

  boolExp(exp: unknown, at: QualifiedName): unknown {
    if (!isObject(exp)) return exp;
    const rels = this.#catalog.sources.get(this.#source)?.tables.get(tableKey(at))?.relationships ?? [];
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(exp)) {
      if (LISTS.has(k) && Array.isArray(v)) out[k] = v.map((e) => this.boolExp(e, at));
      else if (NOTS.has(k)) out[k] = this.boolExp(v, at);
      else if (EXISTS.has(k) && isObject(v) && v['_table'] !== undefined) {
        const target = this.#naming.parse(v['_table'] as TableNameInput);
        out[k] = { ...v, _table: this.tableInput(v['_table'] as TableNameInput), _where: this.boolExp(v['_where'], target) };
      } else {
        const rel = rels.find((x) => x.name === k);
        out[rel === undefined ? this.column(at, k) : k] = rel === undefined ? v : this.boolExp(v, rel.target);
      }
    }
    return out;
  }

  columns(t: QualifiedName, cols: PermissionColumns | undefined): PermissionColumns | undefined {
    return cols === undefined || cols === '*' ? cols : cols.map((c) => this.column(t, c));
  }

  permission<P extends object>(t: QualifiedName, p: P): P {
    const out = { ...p } as Record<string, unknown>;
    if (Array.isArray(out['columns'])) out['columns'] = this.columns(t, out['columns'] as string[]);
    if (isObject(out['set'])) out['set'] = this.keys(t, out['set']);
    for (const key of ['filter', 'check']) if (isObject(out[key])) out[key] = this.boolExp(out[key], t);
    return out as P;
  }

  tableEntry(e: TableMetadata): TableMetadata {
    const t = e.table;
    const config = e.configuration;
    const each = <P extends object>(list: ReadonlyArray<{ role: string; permission: P; comment?: string | null }>) =>
      list.map((x) => ({ ...x, permission: this.permission(t, x.permission) }));
    return {
      ...e,
      table: this.table(t),
      ...(config === undefined
        ? {}
        : {
            configuration: {
              ...config,
              ...(config.custom_column_names === undefined ? {} : { custom_column_names: this.keys(t, config.custom_column_names) }),
              ...(config.column_config === undefined ? {} : { column_config: this.keys(t, config.column_config) }),
            },
          }),
      object_relationships: e.object_relationships.map((r) => this.relationship(t, r)),
      array_relationships: e.array_relationships.map((r) => this.relationship(t, r)),
      select_permissions: each(e.select_permissions),
      insert_permissions: each(e.insert_permissions),
      update_permissions: each(e.update_permissions),
      delete_permissions: each(e.delete_permissions),
    };
  }
}

/**
 * The document with `renames` of `source` applied; `catalog` (from before the renames) resolves relationship targets,
 * `naming` (the source's backend's) reads the table names of the metadata.
 */
export function applyRenames(doc: MetadataDocument, source: string, renames: SchemaRenames, catalog: Catalog, naming: TableNaming): MetadataDocument {
  if (renames.tables.size === 0 && renames.columns.size === 0) return doc;
  const r = new Renamer(renames, catalog, source, naming);
  return updateSource(doc, source, (s) => ({ ...s, tables: s.tables.map((t) => r.tableEntry(t)) }));
}
