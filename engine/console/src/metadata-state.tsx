/**
 * The exported metadata, shared by the pages: loaded once, refreshed after
 * every change a page makes (one `export_metadata` call, v2 form so the
 * resource version comes with it), with the inconsistent objects
 * (`get_inconsistent_metadata`); both read again on each page change too: a
 * column dropped outside the engine, or a change made over the API, shows
 * without a reload.
 */
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { metadata as callMetadata, messageOf } from './api.ts';
import { targetOf, type InconsistencyTarget, type InconsistentObject } from './inconsistency.ts';

/**
 * Note [Console document types]: the exported metadata is typed by the engine's own document
 * model (engine/model/document.ts, imported as types only, so nothing of the engine is
 * bundled), in its wire form: export_metadata leaves out empty lists, which the engine's
 * normalized form always has. Event triggers, actions, custom types, cron triggers and remote
 * schemas take the model's entry types (the model's document holds them as JSON: Note
 * [Typed entries kept as JSON] there).
 */
import type {
  ActionMetadata,
  AllowlistEntry as ModelAllowlistEntry,
  ApiLimits,
  CronTriggerMetadata,
  CustomTypeField,
  CustomTypesMetadata,
  EventTriggerMetadata,
  FunctionMetadata,
  InheritedRole as ModelInheritedRole,
  PermissionEntry as ModelPermissionEntry,
  QualifiedName,
  QueryCollection,
  RelationshipMetadata,
  RelationshipUsing,
  RemoteSchemaMetadata,
  RestEndpoint,
  ScheduledRetryConf,
  SourceMetadata,
  TableMetadata,
} from '../../model/document.ts';

export type QualifiedTable = QualifiedName;

/** A permission as stored under its table; the console reads its body as JSON. */
export type PermissionEntry = ModelPermissionEntry<Record<string, unknown>>;

/** A relationship as exported; `using` is read defensively (a hand-written one may lack keys). */
export interface RelationshipEntry extends Omit<RelationshipMetadata, 'using'> {
  readonly using: RelationshipUsing | Readonly<Record<string, unknown>>;
}

type TableLists =
  | 'object_relationships'
  | 'array_relationships'
  | 'computed_fields'
  | 'remote_relationships'
  | 'insert_permissions'
  | 'select_permissions'
  | 'update_permissions'
  | 'delete_permissions'
  | 'event_triggers';

/** A tracked table as exported: its lists optional, permissions read as JSON, event triggers typed below. */
export interface TableEntry extends Omit<TableMetadata, TableLists> {
  readonly object_relationships?: readonly RelationshipEntry[];
  readonly array_relationships?: readonly RelationshipEntry[];
  readonly computed_fields?: TableMetadata['computed_fields'];
  readonly remote_relationships?: TableMetadata['remote_relationships'];
  readonly select_permissions?: readonly PermissionEntry[];
  readonly insert_permissions?: readonly PermissionEntry[];
  readonly update_permissions?: readonly PermissionEntry[];
  readonly delete_permissions?: readonly PermissionEntry[];
  readonly event_triggers?: readonly EventTriggerEntry[];
}

/** A header sent to a webhook as the console reads it: a literal value or one read from the engine's environment. */
export interface HeaderConf {
  readonly name: string;
  readonly value?: string;
  readonly value_from_env?: string;
}

export type EventTriggerEntry = EventTriggerMetadata;

export type ActionEntry = ActionMetadata;

export type CustomTypes = CustomTypesMetadata;

export type { CustomTypeField };

export type RetryConfSt = ScheduledRetryConf;

export type CronTriggerEntry = CronTriggerMetadata;

export type QueryCollectionEntry = QueryCollection;

export type AllowlistEntry = ModelAllowlistEntry;

export type RestEndpointEntry = RestEndpoint;

export type RemoteSchemaEntry = RemoteSchemaMetadata;

export type FunctionEntry = FunctionMetadata;

/** A source as exported: its kind's `configuration` (read by the keys each page needs), tables, functions. */
export interface SourceEntry extends Omit<SourceMetadata, 'kind' | 'tables' | 'functions' | 'configuration'> {
  /** A kind this console may not know (source-kinds.ts answers for any). */
  readonly kind: string;
  readonly tables: readonly TableEntry[];
  readonly functions?: readonly FunctionEntry[];
  readonly configuration?: SourceMetadata['configuration'];
}

export type InheritedRole = ModelInheritedRole;

export interface Metadata {
  readonly version: number;
  readonly sources: readonly SourceEntry[];
  readonly inherited_roles?: readonly InheritedRole[];
  readonly actions?: readonly ActionEntry[];
  readonly custom_types?: CustomTypes;
  readonly cron_triggers?: readonly CronTriggerEntry[];
  readonly query_collections?: readonly QueryCollectionEntry[];
  readonly allowlist?: readonly AllowlistEntry[];
  readonly rest_endpoints?: readonly RestEndpointEntry[];
  readonly remote_schemas?: readonly RemoteSchemaEntry[];
  readonly api_limits?: ApiLimits;
  readonly [key: string]: unknown;
}

interface MetadataState {
  readonly metadata: Metadata | null;
  readonly resourceVersion: number | null;
  readonly error: string | null;
  /** The inconsistent objects as the engine lists them (null until read). */
  readonly inconsistent: readonly InconsistentObject[] | null;
  /** The same, each with the table and object it is about. */
  readonly inconsistencies: readonly InconsistencyTarget[];
  refresh(): Promise<void>;
}

const Ctx = createContext<MetadataState | null>(null);

export function MetadataProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<{ metadata: Metadata | null; resourceVersion: number | null; error: string | null }>({
    metadata: null,
    resourceVersion: null,
    error: null,
  });
  const [inconsistent, setInconsistent] = useState<readonly InconsistentObject[] | null>(null);
  const readInconsistent = useCallback(async () => {
    try {
      const r = await callMetadata<{ inconsistent_objects: InconsistentObject[] }>('get_inconsistent_metadata');
      setInconsistent(r.inconsistent_objects);
    } catch {
      // The header keeps the last answer; the pages show their own errors.
    }
  }, []);
  const refresh = useCallback(async () => {
    try {
      const [r] = await Promise.all([
        callMetadata<{ resource_version: number; metadata: Metadata }>('export_metadata', {}, { version: 2 }),
        readInconsistent(),
      ]);
      setState({ metadata: r.metadata, resourceVersion: r.resource_version, error: null });
    } catch (e) {
      setState((s) => ({ ...s, error: messageOf(e) }));
    }
  }, [readInconsistent]);
  useEffect(() => {
    void refresh();
    const again = () => void refresh();
    window.addEventListener('hashchange', again);
    return () => window.removeEventListener('hashchange', again);
  }, [refresh]);
  const sources = state.metadata?.sources ?? [];
  const kindOf = (source: string) => sources.find((s) => s.name === source)?.kind;
  const inconsistencies = (inconsistent ?? []).map((o) => targetOf(o, kindOf));
  return <Ctx.Provider value={{ ...state, inconsistent, inconsistencies, refresh }}>{children}</Ctx.Provider>;
}

export function useMetadata(): MetadataState {
  const v = useContext(Ctx);
  if (v === null) throw new Error('useMetadata outside MetadataProvider');
  return v;
}

/** Every role named in the metadata: permissions of tables and inherited roles. */
export function knownRoles(md: Metadata | null): string[] {
  const roles = new Set<string>();
  for (const s of md?.sources ?? []) {
    for (const t of s.tables) {
      for (const key of ['select_permissions', 'insert_permissions', 'update_permissions', 'delete_permissions'] as const) {
        for (const p of t[key] ?? []) roles.add(p.role);
      }
    }
  }
  for (const r of md?.inherited_roles ?? []) roles.add(r.role_name);
  for (const a of md?.actions ?? []) for (const p of a.permissions ?? []) roles.add(p.role);
  for (const r of md?.remote_schemas ?? []) for (const p of r.permissions ?? []) roles.add(p.role);
  return [...roles].sort();
}

export function tableKey(t: QualifiedTable): string {
  // BigQuery's tables are `{dataset, name}` in the metadata (Note [Table names per source kind]).
  const w = t as { schema?: string; dataset?: string; name: string };
  return `${w.schema ?? w.dataset ?? ''}.${t.name}`;
}
