/**
 * Stage "customization": a source's v2 `customization` → how its GraphQL
 * names change. `root_fields.prefix`/`suffix` wrap every root field of the
 * source (after table and function customization), `root_fields.namespace`
 * puts them under one field of each root type, and `type_names.prefix`/
 * `suffix` wrap every type generated for the source's tables and functions
 * (built-in and database scalars stay shared across sources), and
 * `naming_convention: graphql-default` renames the whole schema (build.ts
 * requires it on every source; see Note [Renamed schema] in
 * graphql/schema/naming-convention.ts).
 */
import type { JsonObject, JsonValue } from '../../model/document.ts';
import type { SourceCustomizationInfo } from '../types.ts';
import { GRAPHQL_NAME } from './tables.ts';

/** No customization. */
export const NO_CUSTOMIZATION: SourceCustomizationInfo = {
  namespace: null,
  rootPrefix: '',
  rootSuffix: '',
  typePrefix: '',
  typeSuffix: '',
  namingConvention: 'hasura-default',
};

/** The object at `key` ({} when absent), or null when it is not an object. */
function objectAt(o: JsonObject, key: string): JsonObject | null {
  const v: JsonValue | undefined = o[key];
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) return null;
  return v as JsonObject;
}

function nameAt(o: JsonObject, key: string, path: string): string | null | { reason: string } {
  const v = o[key];
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string' || !GRAPHQL_NAME.test(v)) return { reason: `customization.${path} must be a valid GraphQL name` };
  return v;
}

/** Resolves a source's `customization`, or says why it cannot be used. */
export function resolveSourceCustomization(raw: JsonObject | undefined): SourceCustomizationInfo | { reason: string } {
  if (raw === undefined) return NO_CUSTOMIZATION;
  const root = objectAt(raw, 'root_fields');
  if (root === null) return { reason: 'customization.root_fields must be an object' };
  const types = objectAt(raw, 'type_names');
  if (types === null) return { reason: 'customization.type_names must be an object' };
  const parts = {
    namespace: nameAt(root, 'namespace', 'root_fields.namespace'),
    rootPrefix: nameAt(root, 'prefix', 'root_fields.prefix'),
    rootSuffix: nameAt(root, 'suffix', 'root_fields.suffix'),
    typePrefix: nameAt(types, 'prefix', 'type_names.prefix'),
    typeSuffix: nameAt(types, 'suffix', 'type_names.suffix'),
  };
  for (const v of Object.values(parts)) if (v !== null && typeof v === 'object') return v;
  const naming = raw['naming_convention'] ?? 'hasura-default';
  if (naming !== 'hasura-default' && naming !== 'graphql-default') {
    return { reason: `naming_convention "${String(naming)}" is not known; use "hasura-default" or "graphql-default"` };
  }
  const str = (v: string | null | { reason: string }): string => (typeof v === 'string' ? v : '');
  return {
    namespace: typeof parts.namespace === 'string' ? parts.namespace : null,
    rootPrefix: str(parts.rootPrefix),
    rootSuffix: str(parts.rootSuffix),
    typePrefix: str(parts.typePrefix),
    typeSuffix: str(parts.typeSuffix),
    namingConvention: naming,
  };
}

/** A root field name with the source's prefix and suffix. */
export function customizeRootField(c: SourceCustomizationInfo | undefined, name: string): string {
  return c === undefined ? name : `${c.rootPrefix}${name}${c.rootSuffix}`;
}

/** Every root field name of a record (table or function root fields) customized. */
export function customizeRootFields<T extends { readonly [K in keyof T]: string }>(c: SourceCustomizationInfo | undefined, fields: T): T {
  if (c === undefined || (c.rootPrefix === '' && c.rootSuffix === '')) return fields;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields) as Array<[string, string]>) out[k] = customizeRootField(c, v);
  return out as T;
}

/** A generated type name with the source's type prefix and suffix. */
export function customizeTypeName(c: SourceCustomizationInfo | undefined, name: string): string {
  return c === undefined ? name : `${c.typePrefix}${name}${c.typeSuffix}`;
}
