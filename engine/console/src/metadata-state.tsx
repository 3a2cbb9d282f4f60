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

export interface QualifiedTable {
  readonly schema: string;
  readonly name: string;
}

export interface PermissionEntry {
  readonly role: string;
  readonly permission: Record<string, unknown>;
  readonly comment?: string;
}

export interface RelationshipEntry {
  readonly name: string;
  readonly using: Record<string, unknown>;
}

export interface TableEntry {
  readonly table: QualifiedTable;
  readonly configuration?: {
    custom_name?: string;
    custom_root_fields?: Record<string, string | { name?: string }>;
    column_config?: Record<string, { custom_name?: string; comment?: string }>;
    custom_column_names?: Record<string, string>;
  };
  readonly is_enum?: boolean;
  readonly object_relationships?: readonly RelationshipEntry[];
  readonly array_relationships?: readonly RelationshipEntry[];
  readonly select_permissions?: readonly PermissionEntry[];
  readonly insert_permissions?: readonly PermissionEntry[];
  readonly update_permissions?: readonly PermissionEntry[];
  readonly delete_permissions?: readonly PermissionEntry[];
  readonly event_triggers?: readonly EventTriggerEntry[];
}

/** A header sent to a webhook: a literal value or one read from the engine's environment. */
export interface HeaderConf {
  readonly name: string;
  readonly value?: string;
  readonly value_from_env?: string;
}

export interface EventTriggerEntry {
  readonly name: string;
  readonly definition: {
    readonly enable_manual?: boolean;
    readonly insert?: { readonly columns: '*' | readonly string[] };
    readonly update?: { readonly columns: '*' | readonly string[] };
    readonly delete?: { readonly columns: '*' | readonly string[] };
  };
  readonly retry_conf?: { readonly num_retries?: number; readonly interval_sec?: number; readonly timeout_sec?: number };
  readonly webhook?: string;
  readonly webhook_from_env?: string;
  readonly headers?: readonly HeaderConf[];
}

export interface ActionEntry {
  readonly name: string;
  readonly comment?: string;
  readonly definition: {
    readonly kind?: 'synchronous' | 'asynchronous';
    readonly type?: 'query' | 'mutation';
    readonly arguments?: ReadonlyArray<{ readonly name: string; readonly type: string; readonly description?: string | null }> | null;
    readonly output_type: string;
    readonly handler: string;
    readonly headers?: readonly HeaderConf[] | null;
    readonly forward_client_headers?: boolean;
    readonly timeout?: number | null;
    readonly [key: string]: unknown;
  };
  readonly permissions?: ReadonlyArray<{ readonly role: string }>;
}

export interface CustomTypeField {
  readonly name: string;
  readonly type: string;
  readonly description?: string | null;
}

export interface CustomTypes {
  readonly scalars?: ReadonlyArray<{ readonly name: string; readonly description?: string | null }>;
  readonly enums?: ReadonlyArray<{
    readonly name: string;
    readonly description?: string | null;
    readonly values: ReadonlyArray<{ readonly value: string; readonly description?: string | null; readonly is_deprecated?: boolean | null }>;
  }>;
  readonly input_objects?: ReadonlyArray<{ readonly name: string; readonly description?: string | null; readonly fields: readonly CustomTypeField[] }>;
  readonly objects?: ReadonlyArray<{
    readonly name: string;
    readonly description?: string | null;
    readonly fields: readonly CustomTypeField[];
    readonly relationships?: readonly unknown[];
  }>;
}

export interface RetryConfSt {
  readonly num_retries?: number;
  readonly retry_interval_seconds?: number;
  readonly timeout_seconds?: number;
  readonly tolerance_seconds?: number;
}

export interface CronTriggerEntry {
  readonly name: string;
  readonly webhook: string;
  readonly schedule: string;
  readonly payload?: unknown;
  readonly headers?: readonly HeaderConf[];
  readonly retry_conf?: RetryConfSt;
  readonly include_in_metadata?: boolean;
  readonly comment?: string | null;
}

export interface QueryCollectionEntry {
  readonly name: string;
  readonly comment?: string | null;
  readonly definition: { readonly queries: ReadonlyArray<{ readonly name: string; readonly query: string }> };
}

export interface AllowlistEntry {
  readonly collection: string;
  readonly scope?: { readonly global: boolean; readonly roles?: readonly string[] };
}

export interface RestEndpointEntry {
  readonly name: string;
  readonly url: string;
  readonly methods: readonly string[];
  readonly definition: { readonly query: { readonly collection_name: string; readonly query_name: string } };
  readonly comment?: string | null;
}

export interface RemoteSchemaEntry {
  readonly name: string;
  readonly comment?: string;
  readonly definition: {
    readonly url?: string;
    readonly url_from_env?: string;
    readonly headers?: readonly HeaderConf[];
    readonly forward_client_headers?: boolean;
    readonly timeout_seconds?: number;
    readonly customization?: {
      readonly root_fields_namespace?: string;
      readonly type_names?: { readonly prefix?: string; readonly suffix?: string; readonly mapping?: Readonly<Record<string, string>> };
      readonly field_names?: readonly unknown[];
    };
    readonly [key: string]: unknown;
  };
  readonly permissions?: ReadonlyArray<{ readonly role: string; readonly definition: { readonly schema: string }; readonly comment?: string }>;
}

export interface FunctionEntry {
  readonly function: QualifiedTable;
}

export interface SourceEntry {
  readonly name: string;
  readonly kind: string;
  readonly tables: readonly TableEntry[];
  readonly functions?: readonly FunctionEntry[];
  readonly configuration?: { readonly connection_info?: { readonly database_url?: string | { readonly from_env?: string } } };
  readonly customization?: Readonly<Record<string, unknown>>;
}

export interface InheritedRole {
  readonly role_name: string;
  readonly role_set: readonly string[];
}

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
