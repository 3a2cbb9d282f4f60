/**
 * Which object an inconsistency (`get_inconsistent_metadata`) is about, so the
 * pages can flag it where it is shown: the header's count, a table in a
 * sidebar, a permission cell, an event trigger, an action, a remote schema.
 * Read from the object's definition first (v2's shapes: `{source, table, role,
 * ...}`), then from its name (`permission articles.user.select in source
 * default`, `table articles in source default`).
 */
import { qualifiedText } from './source-kinds.ts';

export interface InconsistentObject {
  readonly type: string;
  readonly name?: string;
  readonly reason: string;
  readonly definition?: unknown;
}

/** Where an inconsistency shows: the source and `schema.name` of its table, if any, and what on it. */
export interface InconsistencyTarget {
  readonly type: string;
  readonly source: string | null;
  readonly table: string | null;
  /** A permission's role, a relationship's, trigger's or computed field's name, or a top-level object's name. */
  readonly name: string | null;
  readonly operation: string | null;
  readonly reason: string;
}

function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/**
 * What an inconsistent object is about. `kindOf` gives a source's kind (from
 * the metadata): a bare table name is in that kind's default schema (Note
 * [Table names per source kind]).
 */
export function targetOf(o: InconsistentObject, kindOf: (source: string) => string | undefined): InconsistencyTarget {
  const def = record(o.definition);
  const name = o.name ?? '';
  const source = typeof def['source'] === 'string' ? def['source'] : (/ in source (.+)$/.exec(name)?.[1] ?? null);
  // A source the metadata no longer has: its kind is unknown, so a bare name stays bare.
  const kind = kindOf(source ?? 'default') ?? '';
  /** `schema.name` of a table as metadata writes it: `{schema, name}`, `{dataset, name}` or a bare name. */
  const tableText = (t: unknown): string | null => qualifiedText(kind, t);
  /** A table as an inconsistency's name prints it: `articles` (the default schema) or `shop.orders`. */
  const tableFromName = (text: string): string => (text.includes('.') ? text : (qualifiedText(kind, text) ?? text));
  let table = tableText(def['table']);
  let what: string | null = null;
  let operation: string | null = null;
  const perm = /^(select|insert|update|delete)_permission$/.exec(o.type);
  if (perm !== null) {
    operation = perm[1]!;
    const m = /^permission (.+)\.([^.]+)\.(?:select|insert|update|delete) in source /.exec(name);
    what = typeof def['role'] === 'string' ? def['role'] : (m?.[2] ?? null);
    table ??= m?.[1] !== undefined ? tableFromName(m[1]) : null;
  } else if (o.type === 'table') {
    table ??= tableText(def) ?? (/^table (.+) in source /.exec(name)?.[1] !== undefined ? tableFromName(/^table (.+) in source /.exec(name)![1]!) : null);
  } else if (o.type === 'event_trigger') {
    what =
      typeof def['name'] === 'string'
        ? def['name']
        : ((record(def['configuration'])['name'] as string | undefined) ?? /^event_trigger (\S+)/.exec(name)?.[1] ?? null);
  } else if (['object_relation', 'array_relation', 'computed_field', 'remote_relationship'].includes(o.type)) {
    const m = /^(?:relationship|computed field|remote relationship) (.+) in table (.+) in source /.exec(name);
    what = typeof def['name'] === 'string' ? def['name'] : (m?.[1] ?? null);
    table ??= m?.[2] !== undefined ? tableFromName(m[2]) : null;
  } else {
    what = typeof def['name'] === 'string' ? def['name'] : typeof def['role_name'] === 'string' ? def['role_name'] : (/^\S+ (.+)$/.exec(name)?.[1] ?? null);
  }
  return { type: o.type, source: table === null ? source : (source ?? 'default'), table, name: what, operation, reason: o.reason };
}

/** The inconsistencies of a table of a source (any object on it: the table, its relationships, permissions, triggers). */
export function onTable(list: readonly InconsistencyTarget[], source: string, table: string): InconsistencyTarget[] {
  return list.filter((t) => t.source === source && t.table === table);
}

/** One line naming every reason, for a marker's title. */
export function reasons(list: readonly InconsistencyTarget[]): string {
  return list.map((t) => t.reason).join('\n');
}
