/**
 * Remote relationships from a table to a remote schema field (v2 compat:
 * spec "Remote relationship"; both stored forms: the older `{hasura_fields,
 * remote_schema, remote_field}` and `{to_remote_schema: {remote_schema,
 * lhs_fields, remote_field}}`), resolved against the remote schema: the
 * field path must exist, its arguments too, and every `$column` it names must
 * be a join column of the table.
 */
import { getNamedType, isInterfaceType, isObjectType, type GraphQLInputType, type GraphQLOutputType } from 'graphql';
import type { QualifiedName } from '../catalog/types.ts';
import type { JsonObject, JsonValue } from '../model/document.ts';
import type { RemoteFieldStep, RemoteSchemaInfo } from './types.ts';

export type { RemoteFieldStep } from './types.ts';

/** A consistent remote relationship of a table. */
export interface RemoteRelationshipInfo {
  readonly name: string;
  readonly source: string;
  readonly table: QualifiedName;
  readonly remote: RemoteSchemaInfo;
  /** Join columns of the table (database names). */
  readonly lhsColumns: readonly string[];
  /** The field path from the remote's query root; the last step is the joined field. */
  readonly path: readonly RemoteFieldStep[];
  /** The joined field's type in the remote's customized full schema. */
  readonly type: GraphQLOutputType;
}

/** The parts of a stored remote relationship definition to the remote schema, either form; null for `to_source`. */
export function remoteSchemaTarget(def: JsonObject): { remoteSchema: string; lhs: readonly string[]; remoteField: JsonObject } | null {
  const to = def['to_remote_schema'];
  if (to !== undefined && to !== null && typeof to === 'object' && !Array.isArray(to)) {
    const o = to as JsonObject;
    return { remoteSchema: String(o['remote_schema']), lhs: (o['lhs_fields'] ?? []) as string[], remoteField: (o['remote_field'] ?? {}) as JsonObject };
  }
  if (typeof def['remote_schema'] === 'string') {
    return { remoteSchema: def['remote_schema'], lhs: (def['hasura_fields'] ?? []) as string[], remoteField: (def['remote_field'] ?? {}) as JsonObject };
  }
  return null;
}

function columnRefs(v: JsonValue, out: Set<string>): void {
  if (typeof v === 'string' && v.startsWith('$')) out.add(v.slice(1));
  else if (Array.isArray(v)) for (const x of v) columnRefs(x, out);
  else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) columnRefs(x, out);
}

/** Resolves a relationship's remote field path, or says why it does not fit. */
export function resolveRemoteRelationship(
  name: string,
  source: string,
  table: QualifiedName,
  columns: ReadonlySet<string>,
  target: { remoteSchema: string; lhs: readonly string[]; remoteField: JsonObject },
  remote: RemoteSchemaInfo | undefined,
): RemoteRelationshipInfo | { reason: string } {
  if (remote === undefined) return { reason: `remote schema "${target.remoteSchema}" does not exist or is inconsistent` };
  for (const c of target.lhs) if (!columns.has(c)) return { reason: `column "${c}" does not exist in table "${table.name}"` };
  const r = resolveRemoteField(target.lhs, target.remoteField, remote);
  if ('reason' in r) return r;
  return { name, source, table, remote, lhsColumns: [...target.lhs], path: r.path, type: r.type };
}

/**
 * Resolves `remote_field` against `remote`: the field path must exist from
 * its query root, each argument too, and every `$name` it uses must be one
 * of the join fields `lhs`.
 */
export function resolveRemoteField(
  lhs: readonly string[],
  remoteField: JsonObject,
  remote: RemoteSchemaInfo,
): { path: RemoteFieldStep[]; type: GraphQLOutputType } | { reason: string } {
  const path: RemoteFieldStep[] = [];
  let parent = remote.original.getQueryType() ?? null;
  let customParent = remote.full.schema.getQueryType() ?? null;
  let level: JsonObject = remoteField;
  let type: GraphQLOutputType | null = null;
  const refs = new Set<string>();
  for (;;) {
    const entries = Object.entries(level);
    const [field, spec] = entries[0] ?? [];
    if (entries.length !== 1 || field === undefined || spec === null || typeof spec !== 'object' || Array.isArray(spec)) {
      return { reason: 'remote_field must name exactly one field at each level' };
    }
    if (parent === null || customParent === null) return { reason: `field "${field}" is not on an object type` };
    const def = parent.getFields()[field];
    if (def === undefined) return { reason: `field "${field}" does not exist in type "${parent.name}" of remote schema "${remote.name}"` };
    const args = ((spec as JsonObject)['arguments'] ?? {}) as Readonly<Record<string, JsonValue>>;
    const argumentTypes: Record<string, GraphQLInputType> = {};
    for (const [a, v] of Object.entries(args)) {
      const ad = def.args.find((x) => x.name === a);
      if (ad === undefined) return { reason: `argument "${a}" does not exist on field "${parent.name}.${field}"` };
      argumentTypes[a] = ad.type;
      columnRefs(v, refs);
    }
    path.push({ field, arguments: args, argumentTypes });
    // The customized type of the same field: the role schema shows that one.
    const customField = Object.values(customParent.getFields()).find((f) => remote.names.fieldIn(customParent?.name ?? '', f.name) === field);
    if (customField === undefined) return { reason: `field "${field}" is not shown by remote schema "${remote.name}"` };
    type = customField.type;
    const next = (spec as JsonObject)['field'];
    if (next === undefined || next === null) break;
    if (typeof next !== 'object' || Array.isArray(next)) return { reason: 'remote_field "field" must be an object' };
    const nt = getNamedType(def.type);
    const ct = getNamedType(customField.type);
    parent = isObjectType(nt) || isInterfaceType(nt) ? (nt as never) : null;
    customParent = isObjectType(ct) ? ct : null;
    level = next as JsonObject;
  }
  for (const r of refs) if (!lhs.includes(r)) return { reason: `"$${r}" is not one of the join fields (${lhs.join(', ')})` };
  if (type === null) return { reason: 'remote_field is empty' };
  return { path, type };
}
