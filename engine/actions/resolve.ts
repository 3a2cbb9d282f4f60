/**
 * The catalog stage of actions and custom types: the document's
 * `custom_types` and `actions` checked against the tracked tables and the
 * GraphQL names already claimed (Note [Catalog stages] in catalog/build.ts).
 *
 * Note [Custom types as one object]: as in v2, the custom types are one
 * metadata object: a bad type (an undefined field type, a clash with a
 * generated name, a relationship to an untracked table or column) makes the
 * whole set inconsistent, and then every action using one of its types is
 * inconsistent too. Operations touch `custom_types`, `action` or
 * `action_permission`, so a call that would make its own object inconsistent
 * is refused with the reason, and nothing is stored (metadata/run.ts).
 */
import { backendFor, backendOf } from '../backends/registry.ts';
import { inconsistency } from '../catalog/inconsistency.ts';
import type { StageResult } from '../catalog/stages/stage.ts';
import type { NameRegistry } from '../catalog/stages/names.ts';
import { scalarName } from '../catalog/graphql-names.ts';
import { tableKey, type InconsistentObject, type SourceInfo, type SourceKind } from '../catalog/types.ts';
import { resolveEnv } from '../cli/env.ts';
import { EngineError } from '../errors/engine-error.ts';
import type { InheritedRole, JsonObject, MetadataDocument } from '../model/document.ts';
import type { TableNameInput } from '../model/document.ts';
import { compileRequestTransform, compileResponseTransform, resolveUrlTemplate } from '../transforms/index.ts';
import {
  baseName,
  BUILTIN_SCALARS,
  DEFAULT_ACTION_TIMEOUT_SECONDS,
  parseTypeRef,
  type ActionHeader,
  type ActionInfo,
  type ActionsCatalog,
  type CustomEnum,
  type CustomField,
  type CustomInputObject,
  type CustomObject,
  type CustomRelationship,
  type CustomScalar,
  type CustomTypesInfo,
  type TypeRef,
} from './types.ts';

type Loose = Record<string, unknown>;

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

const EMPTY_TYPES: CustomTypesInfo = { scalars: new Map(), enums: new Map(), inputObjects: new Map(), objects: new Map() };

/** An empty actions catalog. */
export const NO_ACTIONS: ActionsCatalog = { customTypes: EMPTY_TYPES, actions: new Map() };

class Invalid extends Error {}

function fail(message: string): never {
  throw new Invalid(message);
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

function list(v: unknown): Loose[] {
  return Array.isArray(v) ? (v.filter((x) => typeof x === 'object' && x !== null) as Loose[]) : [];
}

/**
 * v2 compat: custom types may name PostgreSQL scalars (`uuid`, `timestamptz`)
 * whatever the sources are (v2's Note [Postgres scalars in custom types]: "We
 * currently have no plan to extend that functionality to other backends").
 * Not the metadata database: an action's types are those of its answers,
 * whichever database stores async results.
 */
const V2_CUSTOM_TYPES_SCALAR_KIND: SourceKind = 'postgres';

/**
 * The scalar names of database types usable in custom types (v2 compat):
 * those a backend lets action types name (TypeNames.actionScalars; those of
 * {@link V2_CUSTOM_TYPES_SCALAR_KIND} always) and those of tracked columns.
 */
function dbScalarNames(sources: ReadonlyMap<string, SourceInfo>): Set<string> {
  const out = new Set<string>();
  const backends = new Set([backendFor(V2_CUSTOM_TYPES_SCALAR_KIND), ...[...sources.values()].map(backendOf)]);
  for (const b of backends) {
    for (const t of b.types.actionScalars) {
      const info = b.scalar(t);
      if (!info.builtin) out.add(scalarName(info));
    }
  }
  for (const s of sources.values()) {
    const backend = backendOf(s);
    for (const t of s.tables.values()) {
      for (const c of t.columns) {
        const info = backend.scalar(c.elementType ?? c.dbType);
        if (!info.builtin) out.add(scalarName(info));
      }
    }
  }
  return out;
}

function fields(raw: unknown, owner: string): CustomField[] {
  const out: CustomField[] = [];
  const seen = new Set<string>();
  for (const f of list(raw)) {
    const name = str(f['name']);
    if (name === null || !NAME.test(name)) fail(`${owner} has a field with an invalid name ${JSON.stringify(f['name'])}`);
    if (seen.has(name)) fail(`${owner} has the field "${name}" twice`);
    seen.add(name);
    const type = parseTypeRef(str(f['type']) ?? '');
    if (type === null) fail(`the field "${name}" of ${owner} has an invalid type ${JSON.stringify(f['type'])}`);
    out.push({ name, type, description: str(f['description']) });
  }
  if (out.length === 0) fail(`${owner} must have at least one field`);
  return out;
}

/** Resolves the custom types (throws Invalid with the reason). */
function resolveCustomTypes(
  raw: JsonObject | null,
  sources: ReadonlyMap<string, SourceInfo>,
  names: NameRegistry | null,
  db: ReadonlySet<string>,
): CustomTypesInfo {
  if (raw === null) return EMPTY_TYPES;
  const scalars = new Map<string, CustomScalar>();
  const enums = new Map<string, CustomEnum>();
  const inputObjects = new Map<string, CustomInputObject>();
  const objects = new Map<string, CustomObject>();
  const all = new Set<string>();
  const declare = (name: unknown, what: string): string => {
    if (typeof name !== 'string' || !NAME.test(name)) fail(`the ${what} name ${JSON.stringify(name)} is not a valid GraphQL name`);
    if (all.has(name)) fail(`the custom type "${name}" is defined twice`);
    if (BUILTIN_SCALARS.has(name)) fail(`the custom type "${name}" clashes with GraphQL's built-in scalar`);
    all.add(name);
    return name;
  };
  for (const s of list(raw['scalars'])) {
    const name = declare(s['name'], 'scalar');
    scalars.set(name, { name, description: str(s['description']) });
  }
  for (const e of list(raw['enums'])) {
    const name = declare(e['name'], 'enum');
    const values = list(e['values']).map((v) => {
      const value = str(v['value']);
      if (value === null || !NAME.test(value) || ['true', 'false', 'null'].includes(value)) {
        fail(`the enum "${name}" has an invalid value ${JSON.stringify(v['value'])}`);
      }
      return { value, description: str(v['description']), isDeprecated: v['is_deprecated'] === true };
    });
    if (values.length === 0) fail(`the enum "${name}" must have at least one value`);
    enums.set(name, { name, description: str(e['description']), values });
  }
  const inputRaw = list(raw['input_objects']);
  const objectRaw = list(raw['objects']);
  for (const o of inputRaw) declare(o['name'], 'input object');
  for (const o of objectRaw) declare(o['name'], 'object');
  const isScalarLike = (n: string): boolean => BUILTIN_SCALARS.has(n) || scalars.has(n) || enums.has(n) || db.has(n);
  for (const o of inputRaw) {
    const name = o['name'] as string;
    const fs = fields(o['fields'], `the input object "${name}"`);
    for (const f of fs) {
      const b = baseName(f.type);
      if (!isScalarLike(b) && !all.has(b)) fail(`the type "${b}" of the field "${f.name}" of the input object "${name}" is not defined`);
      if (!isScalarLike(b) && !inputRaw.some((x) => x['name'] === b)) {
        fail(`the field "${f.name}" of the input object "${name}" has the output type "${b}"; only scalars, enums and input objects are allowed`);
      }
    }
    inputObjects.set(name, { name, description: str(o['description']), fields: fs });
  }
  for (const o of objectRaw) {
    const name = o['name'] as string;
    const fs = fields(o['fields'], `the object "${name}"`);
    for (const f of fs) {
      const b = baseName(f.type);
      if (!isScalarLike(b) && !all.has(b)) fail(`the type "${b}" of the field "${f.name}" of the object "${name}" is not defined`);
      if (!isScalarLike(b) && !objectRaw.some((x) => x['name'] === b)) {
        fail(`the field "${f.name}" of the object "${name}" has the input type "${b}"; only scalars, enums and objects are allowed`);
      }
    }
    const relationships = list(o['relationships']).map((r) => resolveRelationship(r, name, fs, sources));
    for (const r of relationships) {
      if (fs.some((f) => f.name === r.name)) fail(`the relationship "${r.name}" of the object "${name}" clashes with a field of the same name`);
    }
    objects.set(name, { name, description: str(o['description']), fields: fs, relationships });
  }
  if (names !== null) {
    const clash = names.claimNames(
      'custom types',
      [...all].map((n) => [n, 'type name'] as const),
      '',
    );
    if (clash !== null) fail(clash);
  }
  return { scalars, enums, inputObjects, objects };
}

function resolveRelationship(r: Loose, object: string, fs: readonly CustomField[], sources: ReadonlyMap<string, SourceInfo>): CustomRelationship {
  const name = str(r['name']);
  if (name === null || !NAME.test(name)) fail(`the object "${object}" has a relationship with an invalid name ${JSON.stringify(r['name'])}`);
  const type = r['type'];
  if (type !== 'object' && type !== 'array') fail(`the relationship "${name}" of "${object}" must have type "object" or "array"`);
  const sourceName = str(r['source']) ?? 'default';
  const source = sources.get(sourceName);
  if (source === undefined) fail(`the relationship "${name}" of "${object}" uses the source "${sourceName}", which does not exist or is inconsistent`);
  const rt = r['remote_table'];
  if (rt === undefined || rt === null) fail(`the relationship "${name}" of "${object}" needs a remote_table`);
  const table = backendOf(source).naming.parse(rt as TableNameInput);
  const info = source.tables.get(tableKey(table));
  if (info === undefined)
    fail(`the relationship "${name}" of "${object}" points to the table "${table.schema}.${table.name}", which is not tracked in source "${sourceName}"`);
  const mapping = r['field_mapping'];
  if (typeof mapping !== 'object' || mapping === null || Array.isArray(mapping) || Object.keys(mapping).length === 0) {
    fail(`the relationship "${name}" of "${object}" needs a non-empty field_mapping`);
  }
  const fieldMapping: Array<readonly [string, string]> = [];
  for (const [field, column] of Object.entries(mapping as Loose)) {
    const f = fs.find((x) => x.name === field);
    if (f === undefined) fail(`the field_mapping of the relationship "${name}" names the field "${field}", which "${object}" does not have`);
    if (f.type.kind !== 'named') fail(`the field "${field}" of "${object}" is a list; a relationship maps scalar fields`);
    if (typeof column !== 'string' || !info.columns.some((c) => c.name === column)) {
      fail(
        `the field_mapping of the relationship "${name}" names the column ${JSON.stringify(column)}, which the table "${table.schema}.${table.name}" does not have`,
      );
    }
    fieldMapping.push([field, column]);
  }
  return { name, type, source: sourceName, table, fieldMapping };
}

function resolveHeaders(raw: unknown): ActionHeader[] {
  return list(raw).map((h) => {
    const name = str(h['name']);
    if (name === null || name === '') fail('a header needs a name');
    if (typeof h['value'] === 'string') return { name, value: h['value'] };
    const env = str(h['value_from_env']);
    if (env === null) fail(`the header "${name}" needs "value" or "value_from_env"`);
    const v = resolveEnv(env);
    if (v === undefined) fail(`the environment variable "${env}" of the header "${name}" is not set`);
    return { name, value: v };
  });
}

/** Roles allowed an action: its permissions, plus inherited roles with a parent allowed. */
function allowedRoles(permissions: readonly string[], inherited: readonly InheritedRole[]): Set<string> {
  const roles = new Set(permissions);
  let grew = true;
  while (grew) {
    grew = false;
    for (const r of inherited) {
      if (!roles.has(r.role_name) && r.role_set.some((p) => roles.has(p))) {
        roles.add(r.role_name);
        grew = true;
      }
    }
  }
  return roles;
}

/**
 * v2 (Hasura.RQL.DDL.Action.resolveAction): the relationships of a sync
 * action's output object may not map its nested object fields; an async
 * action's output object may not have both relationships and nested object
 * fields. Nested objects may have relationships of their own (sync).
 */
function checkOutputRelationships(kind: 'synchronous' | 'asynchronous', object: CustomObject | undefined, types: CustomTypesInfo): void {
  if (object === undefined) return;
  const nested = object.fields.filter((f) => types.objects.has(baseName(f.type))).map((f) => f.name);
  const quoted = (names: readonly string[]): string => names.map((n) => `"${n}"`).join(', ');
  if (kind === 'asynchronous') {
    if (object.relationships.length > 0 && nested.length > 0) fail(`Async action relations cannot be used with object fields: ${quoted(nested)}`);
    return;
  }
  const bad = object.relationships.filter((r) => r.fieldMapping.some(([field]) => nested.includes(field))).map((r) => r.name);
  if (bad.length > 0) fail(`Relationships cannot be defined with nested object fields: ${quoted(bad)}`);
}

function resolveAction(a: Loose, types: CustomTypesInfo, inherited: readonly InheritedRole[], db: ReadonlySet<string>): ActionInfo {
  const name = str(a['name']);
  if (name === null || !NAME.test(name)) fail(`the action name ${JSON.stringify(a['name'])} is not a valid GraphQL name`);
  const d = (a['definition'] ?? {}) as Loose;
  const kind = d['kind'] ?? 'synchronous';
  if (kind !== 'synchronous' && kind !== 'asynchronous') fail('"kind" must be "synchronous" or "asynchronous"');
  const type = d['type'] ?? 'mutation';
  if (type !== 'query' && type !== 'mutation') fail('"type" must be "query" or "mutation"');
  if (kind === 'asynchronous' && type === 'query') fail('an asynchronous action must be a mutation');
  const isInput = (n: string): boolean => BUILTIN_SCALARS.has(n) || types.scalars.has(n) || types.enums.has(n) || types.inputObjects.has(n) || db.has(n);
  const isOutput = (n: string): boolean => BUILTIN_SCALARS.has(n) || types.scalars.has(n) || types.enums.has(n) || types.objects.has(n) || db.has(n);
  const args: CustomField[] = [];
  for (const arg of list(d['arguments'])) {
    const an = str(arg['name']);
    if (an === null || !NAME.test(an)) fail(`the argument name ${JSON.stringify(arg['name'])} is not a valid GraphQL name`);
    if (args.some((x) => x.name === an)) fail(`the argument "${an}" is given twice`);
    const t = parseTypeRef(str(arg['type']) ?? '');
    if (t === null) fail(`the argument "${an}" has an invalid type ${JSON.stringify(arg['type'])}`);
    const b = baseName(t);
    if (!isInput(b)) {
      fail(
        types.objects.has(b)
          ? `the argument "${an}" has the output type "${b}"; arguments take input types`
          : `the type "${b}" of the argument "${an}" is not defined`,
      );
    }
    args.push({ name: an, type: t, description: str(arg['description']) });
  }
  const output: TypeRef | null = parseTypeRef(str(d['output_type']) ?? '');
  if (output === null) fail(`the output_type ${JSON.stringify(d['output_type'])} is not a GraphQL type`);
  const ob = baseName(output);
  if (!isOutput(ob)) fail(types.inputObjects.has(ob) ? `the output type "${ob}" is an input object` : `the output type "${ob}" is not defined`);
  if (kind === 'asynchronous' && !types.objects.has(ob)) fail('the output type of an asynchronous action must be a custom object type');
  checkOutputRelationships(kind, types.objects.get(ob), types);
  const handlerText = str(d['handler']);
  if (handlerText === null || handlerText === '') fail('"handler" must be a URL');
  let handler: string;
  try {
    handler = resolveUrlTemplate(handlerText, resolveEnv, '$');
  } catch (e) {
    fail(e instanceof Error ? `the handler: ${e.message}` : 'the handler cannot be resolved');
  }
  if (!/^https?:\/\//i.test(handler)) fail(`the handler "${handler}" is not an http(s) URL`);
  const timeout = d['timeout'] ?? DEFAULT_ACTION_TIMEOUT_SECONDS;
  if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout <= 0) fail('"timeout" must be a positive number of seconds');
  const compile = <T>(f: () => T): T => {
    try {
      return f();
    } catch (e) {
      if (e instanceof EngineError) fail(`${e.message} (at ${e.path})`);
      throw e;
    }
  };
  const rt = d['request_transform'];
  const st = d['response_transform'];
  const permissions = list(a['permissions']).map((p) => str(p['role']) ?? '');
  return {
    name,
    kind,
    type,
    description: str(a['comment']),
    arguments: args,
    outputType: output,
    handler,
    headers: resolveHeaders(d['headers']),
    forwardClientHeaders: d['forward_client_headers'] === true,
    timeoutMs: timeout * 1000,
    requestTransform: rt === undefined || rt === null ? null : compile(() => compileRequestTransform(rt, '$.definition.request_transform')),
    responseTransform: st === undefined || st === null ? null : compile(() => compileResponseTransform(st, '$.definition.response_transform')),
    roles: allowedRoles(permissions, inherited),
  };
}

/**
 * The actions stage: custom types, then each action (its root field claimed
 * in `names` after the tables' and functions'). `names` may be null (a check
 * without the rest of the catalog).
 */
export function resolveActions(doc: MetadataDocument, sources: ReadonlyMap<string, SourceInfo>, names: NameRegistry | null): StageResult<ActionsCatalog> {
  if (doc.custom_types === null && doc.actions.length === 0) return { output: NO_ACTIONS, inconsistencies: [] };
  const db = dbScalarNames(sources);
  const inconsistencies: InconsistentObject[] = [];
  let types = EMPTY_TYPES;
  try {
    types = resolveCustomTypes(doc.custom_types, sources, names, db);
  } catch (e) {
    if (!(e instanceof Invalid)) throw e;
    inconsistencies.push(inconsistency({ kind: 'custom_types' }, doc.custom_types, `in custom types: ${e.message}`));
  }
  const actions = new Map<string, ActionInfo>();
  for (const a of doc.actions as Loose[]) {
    const name = String(a['name']);
    try {
      if (actions.has(name)) fail(`the action "${name}" is defined twice`);
      const info = resolveAction(a, types, doc.inherited_roles, db);
      if (names !== null) {
        const clash = names.claimNames(`action "${name}"`, [[name, 'root field']], name);
        if (clash !== null) fail(clash);
      }
      actions.set(name, info);
    } catch (e) {
      if (!(e instanceof Invalid)) throw e;
      inconsistencies.push(inconsistency({ kind: 'action', name }, a, `in action "${name}": ${e.message}`));
    }
  }
  return { output: { customTypes: types, actions }, inconsistencies };
}
