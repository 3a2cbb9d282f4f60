/**
 * Remote schema customization (spec "Remote schema `customization`"): type
 * names by mapping or prefix/suffix, field names per parent type. The
 * schema is renamed with @graphql-tools/utils' mapSchema; the maps kept
 * here translate a client's selection back to the remote's names at plan
 * time and the remote's `__typename`s forward at run time.
 */
import { isIntrospectionType, isSpecifiedScalarType, type GraphQLNamedType, type GraphQLSchema } from 'graphql';
import { MapperKind, mapSchema, renameType } from '@graphql-tools/utils';
import type { RemoteCustomization } from './definition.ts';

/** Name translations of one remote schema (the same for every role's view of it). */
export interface RemoteNames {
  /** Original type name → customized. */
  typeOut(orig: string): string;
  /** Customized type name → original. */
  typeIn(custom: string): string;
  /** The original name of field `custom` of the type whose customized name is `customParent`. */
  fieldIn(customParent: string, custom: string): string;
  /** True when no name changes (the maps may be skipped). */
  readonly identity: boolean;
}

function isBuiltin(t: GraphQLNamedType): boolean {
  return isSpecifiedScalarType(t) || isIntrospectionType(t);
}

/** The name translations `c` defines over `schema` (original names). */
export function remoteNames(schema: GraphQLSchema, c: RemoteCustomization | undefined): RemoteNames {
  const out = new Map<string, string>();
  const into = new Map<string, string>();
  const fieldsIn = new Map<string, Map<string, string>>();
  const tn = c?.type_names;
  for (const t of Object.values(schema.getTypeMap())) {
    if (isBuiltin(t)) continue;
    const mapped = tn?.mapping?.[t.name] ?? `${tn?.prefix ?? ''}${t.name}${tn?.suffix ?? ''}`;
    if (mapped !== t.name) {
      out.set(t.name, mapped);
      into.set(mapped, t.name);
    }
  }
  for (const f of c?.field_names ?? []) {
    const parent = schema.getType(f.parent_type);
    if (parent === undefined || parent === null || !('getFields' in parent)) continue;
    const m = new Map<string, string>();
    for (const name of Object.keys(parent.getFields())) {
      const custom = f.mapping?.[name] ?? `${f.prefix ?? ''}${name}${f.suffix ?? ''}`;
      if (custom !== name) m.set(custom, name);
    }
    if (m.size > 0) fieldsIn.set(out.get(f.parent_type) ?? f.parent_type, m);
  }
  return {
    typeOut: (orig) => out.get(orig) ?? orig,
    typeIn: (custom) => into.get(custom) ?? custom,
    fieldIn: (parent, custom) => fieldsIn.get(parent)?.get(custom) ?? custom,
    identity: out.size === 0 && fieldsIn.size === 0,
  };
}

/** The customized field names of `c` for type `orig`: original field name → customized. */
function fieldRenames(c: RemoteCustomization | undefined, orig: string): ((name: string) => string) | null {
  const f = c?.field_names?.find((x) => x.parent_type === orig);
  if (f === undefined) return null;
  return (name) => f.mapping?.[name] ?? `${f.prefix ?? ''}${name}${f.suffix ?? ''}`;
}

/** `schema` (original names) with the names `c` customizes changed. */
export function customizeSchema(schema: GraphQLSchema, c: RemoteCustomization | undefined, names: RemoteNames): GraphQLSchema {
  if (names.identity) return schema;
  return mapSchema(schema, {
    [MapperKind.COMPOSITE_FIELD]: (config, fieldName, typeName) => {
      // mapSchema renames the types before it maps their fields: typeName may be the new name.
      const rename = fieldRenames(c, names.typeIn(typeName));
      return rename === null ? config : [rename(fieldName), config];
    },
    [MapperKind.TYPE]: (type) => (isBuiltin(type) ? type : names.typeOut(type.name) === type.name ? type : renameType(type, names.typeOut(type.name))),
  });
}
