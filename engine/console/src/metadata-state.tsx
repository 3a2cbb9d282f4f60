/**
 * The exported metadata, shared by the pages: loaded once, refreshed after
 * every change a page makes (one `export_metadata` call, v2 form so the
 * resource version comes with it).
 */
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { metadata as callMetadata, messageOf } from './api.ts';

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
  readonly configuration?: { custom_name?: string; custom_root_fields?: Record<string, string | { name?: string }> };
  readonly is_enum?: boolean;
  readonly object_relationships?: readonly RelationshipEntry[];
  readonly array_relationships?: readonly RelationshipEntry[];
  readonly select_permissions?: readonly PermissionEntry[];
  readonly insert_permissions?: readonly PermissionEntry[];
  readonly update_permissions?: readonly PermissionEntry[];
  readonly delete_permissions?: readonly PermissionEntry[];
}

export interface FunctionEntry {
  readonly function: QualifiedTable;
}

export interface SourceEntry {
  readonly name: string;
  readonly kind: string;
  readonly tables: readonly TableEntry[];
  readonly functions?: readonly FunctionEntry[];
}

export interface InheritedRole {
  readonly role_name: string;
  readonly role_set: readonly string[];
}

export interface Metadata {
  readonly version: number;
  readonly sources: readonly SourceEntry[];
  readonly inherited_roles?: readonly InheritedRole[];
  readonly [key: string]: unknown;
}

interface MetadataState {
  readonly metadata: Metadata | null;
  readonly resourceVersion: number | null;
  readonly error: string | null;
  refresh(): Promise<void>;
}

const Ctx = createContext<MetadataState | null>(null);

export function MetadataProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<{ metadata: Metadata | null; resourceVersion: number | null; error: string | null }>({
    metadata: null,
    resourceVersion: null,
    error: null,
  });
  const refresh = useCallback(async () => {
    try {
      const r = await callMetadata<{ resource_version: number; metadata: Metadata }>('export_metadata', {}, { version: 2 });
      setState({ metadata: r.metadata, resourceVersion: r.resource_version, error: null });
    } catch (e) {
      setState((s) => ({ ...s, error: messageOf(e) }));
    }
  }, []);
  useEffect(() => {
    void refresh();
  }, [refresh]);
  return <Ctx.Provider value={{ ...state, refresh }}>{children}</Ctx.Provider>;
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
  return [...roles].sort();
}

export function tableKey(t: QualifiedTable): string {
  return `${t.schema}.${t.name}`;
}
