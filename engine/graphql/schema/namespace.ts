/**
 * Source `root_fields.namespace`: the root fields of a namespaced source move
 * under one field of the root type, typed `<ns>_query`, `<ns>_mutation_frontend`
 * or `<ns>_subscription` (v2 compat, with the source's type prefix/suffix).
 */
import { type GraphQLFieldConfig, type GraphQLFieldConfigMap } from 'graphql';
import type { SourceInfo } from '../../catalog/types.ts';
import { customizeTypeName } from '../../catalog/stages/customization.ts';
import { descriptorOf, withDescriptor, type RootFieldDescriptor } from './descriptors.ts';
import { nonNull } from './lean-types.ts';
import { rootType } from './root-types.ts';

/** v2 compat: the suffix of a namespace type per root. */
const NAMESPACE_SUFFIX = { query: '_query', mutation: '_mutation_frontend', subscription: '_subscription' } as const;

/** The source a root field reads or writes (every table and function descriptor names its table's source). */
function sourceOf(extensions: Readonly<Record<string, unknown>> | null | undefined): SourceInfo | undefined {
  return descriptorOf<{ readonly table?: { readonly source?: SourceInfo } }>(extensions)?.table?.source;
}

/** `fields` with the fields of namespaced sources moved under their namespace field. */
export function namespaceRootFields(
  fields: GraphQLFieldConfigMap<unknown, unknown>,
  root: keyof typeof NAMESPACE_SUFFIX,
): GraphQLFieldConfigMap<unknown, unknown> {
  // Entries in root field order; a namespace takes the place of its first member.
  const order: Array<readonly [string, GraphQLFieldConfig<unknown, unknown> | null]> = [];
  const groups = new Map<string, { source: SourceInfo; fields: GraphQLFieldConfigMap<unknown, unknown> }>();
  for (const [name, field] of Object.entries(fields)) {
    const source = sourceOf(field.extensions);
    const ns = source?.customization?.namespace ?? null;
    if (source === undefined || ns === null) {
      order.push([name, field]);
      continue;
    }
    let group = groups.get(ns);
    if (group === undefined) {
      group = { source, fields: {} };
      groups.set(ns, group);
      order.push([ns, null]);
    }
    group.fields[name] = field;
  }
  const out: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const [name, field] of order) {
    const group = groups.get(name);
    if (field !== null || group === undefined) {
      if (field !== null) out[name] = field;
      continue;
    }
    const type = rootType(customizeTypeName(group.source.customization, `${name}${NAMESPACE_SUFFIX[root]}`), group.fields);
    out[name] = {
      type: nonNull(type),
      extensions: withDescriptor<RootFieldDescriptor>({ kind: 'namespace', source: group.source.name }),
    };
  }
  return out;
}
