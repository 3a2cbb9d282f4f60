/**
 * The `graphql-default` naming convention (source customization
 * `naming_convention`): type names PascalCase, field, argument and input
 * field names camelCase (`authorByPk`, `orderBy`, `_isNull`), generated enum
 * values UPPERCASE (`ASC`, `FIRST_NAME`); enum table values, `__` names,
 * built-in scalars and the root type names stay as they are.
 *
 * Note [Renamed schema]
 * The schema is built with the v2 default names, then renamed as a whole
 * (every renamed element keeps its default name in `extensions`). A request
 * is validated against the renamed schema; its document and variables are
 * then translated back to default names (fields keep the client's response
 * key as an alias) and turned into IR against the default schema, so the rest
 * of the pipeline never sees the convention. `__typename` values in the IR are
 * renamed back to the client's names, and introspection runs on the renamed
 * schema (to-ir's `introspectionSchema`).
 */
import {
  getNamedType,
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isSpecifiedScalarType,
  Kind,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type ASTNode,
  type DocumentNode,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLType,
  type OperationDefinitionNode,
  type TypeNode,
} from 'graphql';
import { ENUM_TABLE_EXTENSION } from './column-types.ts';
import { MUTATION_ROOT, QUERY_ROOT, SUBSCRIPTION_ROOT } from './names.ts';

/** The `extensions` key holding an element's default (v2 `hasura-default`) name. */
const ORIGINAL = 'engineDefaultName';

/** A schema renamed to `graphql-default`, and the way back to default names. */
export interface NamingConvention {
  /** The schema as built, with default names: what to-ir reads. */
  readonly original: GraphQLSchema;
  /** The client-facing schema. */
  readonly renamed: GraphQLSchema;
  /** Default type name → client type name (for `__typename` values). */
  readonly typeNames: ReadonlyMap<string, string>;
}

/** `author_bool_exp` → `AuthorBoolExp`. */
export function pascalCase(name: string): string {
  return name
    .split('_')
    .filter((p) => p !== '')
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('');
}

/** `author_by_pk` → `authorByPk`; a leading `_` stays (`_is_null` → `_isNull`). */
export function camelCase(name: string): string {
  const lead = /^_*/.exec(name)?.[0] ?? '';
  const parts = name
    .slice(lead.length)
    .split('_')
    .filter((p) => p !== '');
  return lead + parts.map((p, i) => (i === 0 ? p : p.charAt(0).toUpperCase() + p.slice(1))).join('');
}

const ROOTS = new Set<string>([QUERY_ROOT, MUTATION_ROOT, SUBSCRIPTION_ROOT]);

function keepsName(t: GraphQLNamedType): boolean {
  return t.name.startsWith('__') || ROOTS.has(t.name) || (isScalarType(t) && isSpecifiedScalarType(t));
}

function withOriginal(ext: Readonly<Record<string, unknown>> | null | undefined, name: string): Record<string, unknown> {
  return { ...(ext ?? {}), [ORIGINAL]: name };
}

/** The default name stored on a renamed element, or its own name. */
function originalName(el: { readonly name: string; readonly extensions?: Readonly<Record<string, unknown>> | null }): string {
  const v = el.extensions?.[ORIGINAL];
  return typeof v === 'string' ? v : el.name;
}

/** Renames `schema` to the graphql-default convention. See Note [Renamed schema]. */
export function renameSchema(schema: GraphQLSchema): NamingConvention {
  const map = new Map<GraphQLNamedType, GraphQLNamedType>();
  const typeNames = new Map<string, string>();
  const named = (t: GraphQLNamedType): GraphQLNamedType => map.get(t) ?? t;
  const wrap = (t: GraphQLType): GraphQLType => {
    if (isNonNullType(t)) return new GraphQLNonNull(wrap(t.ofType));
    if (isListType(t)) return new GraphQLList(wrap(t.ofType));
    return named(t);
  };
  const args = (cfg: GraphQLFieldConfigArgumentMap): GraphQLFieldConfigArgumentMap =>
    Object.fromEntries(
      Object.entries(cfg).map(([n, a]) => [camelCase(n), { ...a, type: wrap(a.type) as GraphQLInputType, extensions: withOriginal(a.extensions, n) }]),
    );
  for (const t of Object.values(schema.getTypeMap())) {
    if (keepsName(t)) continue;
    const name = pascalCase(t.name);
    typeNames.set(t.name, name);
    const extensions = withOriginal(t.extensions, t.name);
    if (isScalarType(t)) {
      map.set(t, new GraphQLScalarType({ ...t.toConfig(), name, extensions }));
    } else if (isEnumType(t)) {
      // Enum table values are data the database returns as they are; generated enums are uppercased.
      const keep = t.extensions[ENUM_TABLE_EXTENSION] === true;
      const values = Object.fromEntries(
        t
          .getValues()
          .map((v) => [
            keep ? v.name : v.name.toUpperCase(),
            { value: v.value as unknown, description: v.description, deprecationReason: v.deprecationReason, extensions: withOriginal(v.extensions, v.name) },
          ]),
      );
      map.set(t, new GraphQLEnumType({ name, description: t.description, values, extensions }));
    } else if (isInputObjectType(t)) {
      const cfg = t.toConfig();
      const fields = (): GraphQLInputFieldConfigMap =>
        Object.fromEntries(
          Object.entries(cfg.fields).map(([n, f]) => [
            camelCase(n),
            { ...f, type: wrap(f.type) as GraphQLInputType, extensions: withOriginal(f.extensions, n) },
          ]),
        );
      map.set(t, new GraphQLInputObjectType({ ...cfg, name, fields, extensions }));
    } else if (isObjectType(t)) {
      map.set(t, objectType(t, name, extensions));
    }
  }
  function objectType(t: GraphQLObjectType, name: string, extensions: Record<string, unknown>): GraphQLObjectType {
    const cfg = t.toConfig();
    const fields = (): GraphQLFieldConfigMap<unknown, unknown> =>
      Object.fromEntries(
        Object.entries(cfg.fields).map(([n, f]) => [
          n.startsWith('__') ? n : camelCase(n),
          { ...f, type: wrap(f.type) as GraphQLObjectType, args: args(f.args ?? {}), extensions: withOriginal(f.extensions, n) },
        ]),
      );
    return new GraphQLObjectType({ ...cfg, name, fields, interfaces: [], extensions });
  }
  const root = (t: GraphQLObjectType | null | undefined): GraphQLObjectType | undefined =>
    t === null || t === undefined ? undefined : objectType(t, t.name, { ...(t.extensions ?? {}) });
  const renamed = new GraphQLSchema({
    query: root(schema.getQueryType()),
    mutation: root(schema.getMutationType()),
    subscription: root(schema.getSubscriptionType()),
    types: [...map.values()],
  });
  return { original: schema, renamed, typeNames };
}

/**
 * A validated document in client names → the same document in default
 * names, for to-ir. Fields keep the client's name as alias (the response
 * key); introspection subtrees (`__schema`, `__type`) are left as they are.
 */
export function toDefaultNames(
  naming: NamingConvention,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): { document: DocumentNode; operation: OperationDefinitionNode } {
  const edits = new Map<ASTNode, ASTNode>();
  const info = new TypeInfo(naming.renamed);
  visit(
    document,
    visitWithTypeInfo(info, {
      Field(node) {
        if (node.name.value === '__schema' || node.name.value === '__type') return false;
        const def = info.getFieldDef();
        if (def === null || def === undefined || node.name.value.startsWith('__')) return undefined;
        const name = originalName(def);
        if (name !== node.name.value) {
          edits.set(node, { ...node, name: { ...node.name, value: name }, alias: node.alias ?? { kind: Kind.NAME, value: node.name.value } });
        }
        return undefined;
      },
      Argument(node) {
        const def = info.getArgument();
        if (def !== null && def !== undefined && info.getDirective() === null) edits.set(node, { ...node, name: { ...node.name, value: originalName(def) } });
      },
      ObjectField(node) {
        const parent = info.getParentInputType();
        const def =
          parent !== null && isInputObjectType(getNamedType(parent))
            ? (getNamedType(parent) as GraphQLInputObjectType).getFields()[node.name.value]
            : undefined;
        if (def !== undefined) edits.set(node, { ...node, name: { ...node.name, value: originalName(def) } });
      },
      EnumValue(node) {
        const def = info.getEnumValue();
        if (def !== null && def !== undefined) edits.set(node, { ...node, value: originalName(def) });
      },
      NamedType(node) {
        const t = naming.renamed.getType(node.name.value);
        if (t !== undefined) edits.set(node, { ...node, name: { ...node.name, value: originalName(t) } });
      },
    }),
  );
  const out = visit(document, { enter: (node) => edits.get(node) });
  const index = document.definitions.indexOf(operation);
  const op = out.definitions[index];
  return { document: out, operation: (op ?? operation) as OperationDefinitionNode };
}

/** Coerced variable values in client names → default names (input object keys). */
export function variablesToDefaultNames(
  naming: NamingConvention,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...variables };
  for (const d of operation.variableDefinitions ?? []) {
    const name = d.variable.name.value;
    const type = naming.renamed.getType(namedTypeOf(d.type));
    if (type !== undefined && name in out) out[name] = valueToDefault(out[name], type);
  }
  return out;
}

function namedTypeOf(t: TypeNode): string {
  return t.kind === Kind.NAMED_TYPE ? t.name.value : namedTypeOf(t.type);
}

function valueToDefault(value: unknown, type: GraphQLNamedType): unknown {
  if (Array.isArray(value)) return value.map((v) => valueToDefault(v, type));
  if (!isInputObjectType(type) || typeof value !== 'object' || value === null) return value;
  const fields = type.getFields();
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const def = fields[k];
    out[def === undefined ? k : originalName(def)] = def === undefined ? v : valueToDefault(v, getNamedType(def.type));
  }
  return out;
}

/** Renames `__typename` values (`{kind: 'typename', typename}` anywhere in the IR) to client names. */
export function renameTypenames<T>(ir: T, typeNames: ReadonlyMap<string, string>): T {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v !== 'object' || v === null || v instanceof Map) return v;
    const o = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) out[k] = walk(x);
    if (o['kind'] === 'typename' && typeof o['typename'] === 'string') out['typename'] = typeNames.get(o['typename']) ?? o['typename'];
    if (o['kind'] === 'static' && typeof o['json'] === 'string' && o['json'].startsWith('"')) {
      const n = JSON.parse(o['json']) as unknown;
      if (typeof n === 'string' && typeNames.has(n)) out['json'] = JSON.stringify(typeNames.get(n));
    }
    return out;
  };
  return walk(ir) as T;
}
