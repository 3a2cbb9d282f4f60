/**
 * Root fields of a remote schema → the text of the remote query
 * (ir/remote.ts).
 *
 * Note [Remote root fields]
 * The remote query is written once, when the operation is planned, from the
 * client's selection in the role's (customized) schema: field and type names
 * go back to the remote's (RemoteNames; an output key keeps the client's
 * name through an alias), fragment spreads become inline fragments on the
 * remote's type names (so no fragment definitions need to travel), `@skip`
 * and `@include` stay for the remote to apply, and variables stay variables,
 * declared with their types in the remote's names, so a plan-cache hit only
 * binds the request's values and sends the text: no parse, validation or
 * introspection per request. `@preset` arguments and input fields of the
 * role's permission are written in: static values as literals, session
 * variables as extra variables of the remote query bound from the session.
 * A client variable holding an input object that has preset fields inside
 * is written in as a literal too (it becomes structural: part of the plan's
 * key) so the presets can be merged into it. `__typename`s are selected as
 * the client asked and renamed back after the answer (TypenameTree), only
 * when the customization renames types.
 */
import {
  astFromValue,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  print,
  visit,
  type DirectiveNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type OperationDefinitionNode,
  type SelectionNode,
  type TypeNode,
  type ValueNode,
} from 'graphql';
import type * as ir from '../../ir/index.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import type { Preset } from '../../remote/permissions.ts';
import type { RemoteSchemaInfo, RemoteView } from '../../remote/types.ts';
import type { RemoteRelationshipInfo } from '../../remote/relationship.ts';
import type { RoleJoin, RoleJoinStep } from '../../remote/role-join.ts';
import { joinColumnKey, RemoteLiteral } from '../../ir/remote.ts';
import { descriptorOf, type RemoteTypeFieldDescriptor, type RootFieldDescriptor } from '../schema/descriptors.ts';
import { rootOf } from '../schema/remote-types.ts';
import { pathKeys, toIrTableJoin } from './remote-table-join.ts';
import { collectFields } from './collect-fields.ts';
import { useLeaf, useStructural, type ToIrContext } from './context.ts';

type RemoteDescriptor = Extract<RootFieldDescriptor, { kind: 'remote' | 'remote-namespace' }>;

class TreeBuilder {
  readonly typenames = new Set<string>();
  readonly children = new Map<string, TreeBuilder>();
  child(key: string): TreeBuilder {
    let c = this.children.get(key);
    if (c === undefined) {
      c = new TreeBuilder();
      this.children.set(key, c);
    }
    return c;
  }
  freeze(): ir.TypenameTree | null {
    const children = new Map<string, ir.TypenameTree>();
    for (const [k, c] of this.children) {
      const f = c.freeze();
      if (f !== null) children.set(k, f);
    }
    if (this.typenames.size === 0 && children.size === 0) return null;
    return { typenames: [...this.typenames], children };
  }
}

/** Session-preset variables must be unique within one operation: a counter per translation. */
const sessionCounters = new WeakMap<ToIrContext, { n: number }>();

/** Writes one remote root field (Note [Remote root fields]). */
class RemoteFieldWriter {
  readonly #remote: RemoteSchemaInfo;
  readonly #view: RemoteView;
  readonly #ctx: ToIrContext;
  readonly #operation: OperationDefinitionNode;
  readonly #path: string;
  readonly variables = new Map<string, string>();
  readonly sessionPresets: ir.SessionPreset[] = [];
  /** Relationships of the remote's types met in the selection, paths from the value written down. */
  readonly joins: ir.Join[] = [];

  constructor(remote: RemoteSchemaInfo, view: RemoteView, ctx: ToIrContext, operation: OperationDefinitionNode, path: string) {
    this.#remote = remote;
    this.#view = view;
    this.#ctx = ctx;
    this.#operation = operation;
    this.#path = path;
  }

  /** A type of the schema being served (the role's copies of the remote's types: graphql/schema/remote-types.ts). */
  #type(name: string): GraphQLNamedType | undefined {
    return this.#ctx.schema.getType(name) ?? this.#view.schema.getType(name) ?? undefined;
  }

  /** The selection of `nodes` on `type` (` { ... }`, empty for a leaf) as a part without a field name (remote joins). */
  selection(type: GraphQLOutputType, nodes: readonly FieldNode[]): ir.RemoteFieldPart {
    const tree = new TreeBuilder();
    const sets = nodes.flatMap((n) => n.selectionSet?.selections ?? []);
    const text = sets.length === 0 ? '' : ` { ${this.#selections(getNamedType(type), sets, tree, [])} }`;
    return { text, variables: [...this.variables], sessionPresets: this.sessionPresets, typenames: this.#remote.names.identity ? null : tree.freeze() };
  }

  part(parent: GraphQLObjectType, def: GraphQLField<unknown, unknown>, nodes: readonly FieldNode[]): ir.RemoteFieldPart {
    const tree = new TreeBuilder();
    const orig = this.#remote.names.fieldIn(parent.name, def.name);
    const args = this.#args(nodes[0]?.arguments ?? [], def, parent.name, orig);
    const sets = nodes.flatMap((n) => n.selectionSet?.selections ?? []);
    const sub = sets.length === 0 ? '' : ` { ${this.#selections(getNamedType(def.type), sets, tree, [])} }`;
    return {
      text: `${orig}${args}${sub}`,
      variables: [...this.variables],
      sessionPresets: this.sessionPresets,
      typenames: this.#remote.names.identity ? null : tree.freeze(),
    };
  }

  /** `keys`: the response keys from the written value down to `parent`'s objects. */
  #selections(parent: GraphQLNamedType, selections: readonly SelectionNode[], tree: TreeBuilder, keys: readonly string[]): string {
    const names = this.#remote.names;
    const out: string[] = [];
    for (const sel of selections) {
      const dirs = this.#directives(sel.directives);
      if (sel.kind === Kind.FIELD) {
        const name = sel.name.value;
        const key = sel.alias?.value ?? name;
        if (name === '__typename') {
          tree.typenames.add(key);
          out.push(`${key}: __typename${dirs}`);
          continue;
        }
        const def = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
        if (def === undefined) throw new EngineError(ErrorCode.ValidationFailed, `field '${name}' not found in type: '${parent.name}'`, { path: this.#path });
        const rel = descriptorOf<RemoteTypeFieldDescriptor>(def.extensions);
        if (rel?.kind === 'remote-type-relationship') {
          out.push(this.#join(rel, def, sel, key, keys, dirs));
          continue;
        }
        const orig = names.fieldIn(parent.name, name);
        const args = this.#args(sel.arguments ?? [], def, parent.name, orig);
        const sub =
          sel.selectionSet === undefined
            ? ''
            : ` { ${this.#selections(getNamedType(def.type), sel.selectionSet.selections, tree.child(key), [...keys, key])} }`;
        out.push(`${key === orig ? '' : `${key}: `}${orig}${args}${dirs}${sub}`);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        const cond = sel.typeCondition === undefined ? parent : (this.#type(sel.typeCondition.name.value) ?? parent);
        const on = sel.typeCondition === undefined ? '' : ` on ${names.typeIn(cond.name)}`;
        out.push(`...${on}${dirs} { ${this.#selections(cond, sel.selectionSet.selections, tree, keys)} }`);
      } else {
        const frag = this.#ctx.fragments.get(sel.name.value);
        if (frag === undefined) continue;
        const cond = this.#type(frag.typeCondition.name.value) ?? parent;
        out.push(`... on ${names.typeIn(cond.name)}${dirs} { ${this.#selections(cond, frag.selectionSet.selections, tree, keys)} }`);
      }
    }
    // A selection left empty by the role's view cannot happen (validation); keep the text valid anyway.
    return out.length === 0 ? '__typename' : out.join(' ');
  }

  /**
   * A relationship field of a remote type: its join fields are selected
   * under hidden keys in its place (with the field's directives), and the
   * join is noted to run on the remote's answer (Note [Remote joins] in
   * execute/remote-join.ts).
   */
  #join(d: RemoteTypeFieldDescriptor, def: GraphQLField<unknown, unknown>, node: FieldNode, key: string, keys: readonly string[], dirs: string): string {
    const rel = d.rel;
    const lhs = rel.kind === 'to_source' ? rel.mapping.map(([f]) => f) : rel.lhsFields;
    const path = `${this.#path}${[...keys, key].map((k) => `.selectionSet.${k}`).join('')}`;
    if (rel.kind === 'to_source') this.joins.push(toIrTableJoin(d, def, [node], this.#ctx, key, keys, path));
    else this.joins.push(toIrRemoteTypeJoin(d, def, [node], this.#ctx, key, keys, path));
    // The field's @skip/@include ride on the join fields: an object the remote answers without them is left alone by the join.
    return lhs.map((f) => `${joinColumnKey(f)}: ${f}${dirs}`).join(' ');
  }

  #directives(directives: readonly DirectiveNode[] | undefined): string {
    if (directives === undefined || directives.length === 0) return '';
    const kept = directives.filter((d) => d.name.value === 'skip' || d.name.value === 'include');
    for (const d of kept) this.#noteVariables(d);
    return kept.length === 0 ? '' : ` ${kept.map((d) => print(d)).join(' ')}`;
  }

  #noteVariables(node: DirectiveNode | ValueNode): void {
    visit(node, {
      Variable: (v) => {
        this.#useVariable(v.name.value);
      },
    });
  }

  #useVariable(name: string): void {
    useLeaf(this.#ctx, name);
    if (this.variables.has(name)) return;
    const def = this.#operation.variableDefinitions?.find((d) => d.variable.name.value === name);
    if (def === undefined) return;
    this.variables.set(name, this.#typeText(def.type));
  }

  #typeText(t: TypeNode): string {
    if (t.kind === Kind.NON_NULL_TYPE) return `${this.#typeText(t.type)}!`;
    if (t.kind === Kind.LIST_TYPE) return `[${this.#typeText(t.type)}]`;
    return this.#remote.names.typeIn(t.name.value);
  }

  /** The presets of field `origField` of `origParent`, by argument name. */
  #argPresets(origParent: string, origField: string): Array<[string, Preset]> {
    if (this.#view.presets.size === 0) return [];
    const prefix = `${origParent}.${origField}.`;
    const out: Array<[string, Preset]> = [];
    for (const [k, p] of this.#view.presets) if (k.startsWith(prefix) && !k.slice(prefix.length).includes('.')) out.push([k.slice(prefix.length), p]);
    return out;
  }

  #args(
    nodes: readonly { readonly name: { readonly value: string }; readonly value: ValueNode }[],
    def: GraphQLField<unknown, unknown>,
    parent: string,
    orig: string,
  ): string {
    const parts: string[] = [];
    for (const a of nodes) {
      const argDef = def.args.find((x) => x.name === a.name.value);
      if (argDef === undefined) continue;
      parts.push(`${a.name.value}: ${this.#value(a.value, argDef.type)}`);
    }
    const origParent = this.#remote.names.typeIn(parent);
    for (const [arg, preset] of this.#argPresets(origParent, orig)) {
      const type = this.#originalArgType(origParent, orig, arg);
      if (type !== null) parts.push(`${arg}: ${this.presetText(preset, type)}`);
    }
    return parts.length === 0 ? '' : `(${parts.join(', ')})`;
  }

  #originalArgType(parent: string, field: string, arg: string): GraphQLInputType | null {
    const t = this.#remote.original.getType(parent);
    if (!isObjectType(t) && !isInterfaceType(t)) return null;
    return t.getFields()[field]?.args.find((a) => a.name === arg)?.type ?? null;
  }

  /** `p` as GraphQL text of `type` (original names): a literal, or a variable of the remote query bound from the session. */
  presetText(p: Preset, type: GraphQLInputType): string {
    if (p.kind === 'session') {
      const counter = sessionCounters.get(this.#ctx) ?? { n: 0 };
      sessionCounters.set(this.#ctx, counter);
      const variable = `__engine_session_${counter.n++}`;
      const named = getNamedType(type).name;
      const coerce = named === 'Int' ? 'int' : named === 'Float' ? 'float' : named === 'Boolean' ? 'boolean' : 'string';
      this.sessionPresets.push({ variable, session: p.name, coerce });
      this.variables.set(variable, String(type));
      return `$${variable}`;
    }
    const ast = astFromValue(p.value, type);
    if (ast === null || ast === undefined)
      throw new EngineError(ErrorCode.ValidationFailed, `the preset value ${JSON.stringify(p.value)} does not fit type "${String(type)}"`, {
        path: this.#path,
      });
    return print(ast);
  }

  /** Whether input type `t` (customized name) has preset fields, itself or inside. */
  #hasPresets(t: GraphQLNamedType, seen = new Set<string>()): boolean {
    if (!isInputObjectType(t) || seen.has(t.name) || this.#view.presets.size === 0) return false;
    seen.add(t.name);
    const orig = this.#remote.names.typeIn(t.name);
    for (const k of this.#view.presets.keys()) if (k.startsWith(`${orig}.`) && k.split('.').length === 2) return true;
    return Object.values(t.getFields()).some((f) => this.#hasPresets(getNamedType(f.type), seen));
  }

  #value(node: ValueNode, type: GraphQLInputType): string {
    const named = getNamedType(type);
    switch (node.kind) {
      case Kind.VARIABLE: {
        if (this.#hasPresets(named)) {
          const value = useStructural(this.#ctx, node.name.value);
          const ast = astFromValue(value, type);
          return ast === null || ast === undefined ? 'null' : this.#value(ast, type);
        }
        this.#useVariable(node.name.value);
        return `$${node.name.value}`;
      }
      case Kind.LIST: {
        const inner = isNonNullType(type) ? type.ofType : type;
        const item = isListType(inner) ? (inner.ofType as GraphQLInputType) : inner;
        return `[${node.values.map((v) => this.#value(v, item)).join(', ')}]`;
      }
      case Kind.OBJECT: {
        if (!isInputObjectType(named)) return print(node);
        const fields = named.getFields();
        const parts = node.fields.map((f) => {
          const fd = fields[f.name.value];
          return `${f.name.value}: ${fd === undefined ? print(f.value) : this.#value(f.value, fd.type)}`;
        });
        const orig = this.#remote.names.typeIn(named.name);
        for (const [k, p] of this.#view.presets) {
          const [t, field, more] = k.split('.');
          if (t !== orig || field === undefined || more !== undefined) continue;
          const original = this.#remote.original.getType(orig);
          const fieldType = isInputObjectType(original) ? original.getFields()[field]?.type : undefined;
          if (fieldType !== undefined) parts.push(`${field}: ${this.presetText(p, fieldType)}`);
        }
        return `{${parts.join(', ')}}`;
      }
      default:
        return print(node);
    }
  }
}

/** The IR of a remote root field (or of a remote's namespace field) selected as `alias`; its type relationships go to `ctx.remoteJoins`. */
export function toIrRemoteField(
  d: RemoteDescriptor,
  def: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  ctx: ToIrContext,
  alias: string,
  path: string,
  operation: OperationDefinitionNode,
): ir.RemoteRootField {
  // The remote's root type (customized names) names the fields' parent; the fields are the role schema's (remote-types.ts).
  const root = rootOf(d.view.schema, d.operation);
  if (root === null || root === undefined)
    throw new EngineError(ErrorCode.ValidationFailed, `no ${d.operation} root in remote schema "${d.remote.name}"`, { path });
  const write = (fieldDef: GraphQLField<unknown, unknown>, fieldNodes: readonly FieldNode[], at: readonly string[], fieldPath: string): ir.RemoteFieldPart => {
    const writer = new RemoteFieldWriter(d.remote, d.view, ctx, operation, fieldPath);
    const part = writer.part(root, fieldDef, fieldNodes);
    for (const j of writer.joins) ctx.remoteJoins?.push({ ...j, path: [...at, ...j.path] });
    return part;
  };
  if (d.kind === 'remote') return { kind: 'remote', alias, remote: d.remote.name, operation: d.operation, part: write(def, nodes, [alias], path) };
  const nsType = getNamedType(def.type) as GraphQLObjectType;
  const defs = nsType.getFields();
  const members: Array<{ alias: string; part: ir.RemoteFieldPart } | { alias: string; json: string }> = [];
  for (const [inner, innerNodes] of collectFields(
    nsType,
    nodes.map((n) => n.selectionSet),
    ctx,
  )) {
    const name = innerNodes[0]?.name.value ?? inner;
    if (name === '__typename') {
      members.push({ alias: inner, json: JSON.stringify(nsType.name) });
      continue;
    }
    const innerDef = defs[name];
    const innerPath = `${path}.selectionSet.${inner}`;
    if (innerDef === undefined) throw new EngineError(ErrorCode.ValidationFailed, `field '${name}' not found in type: '${nsType.name}'`, { path: innerPath });
    members.push({ alias: inner, part: write(innerDef, innerNodes, [alias, inner], innerPath) });
  }
  return { kind: 'remote-namespace', alias, remote: d.remote.name, operation: d.operation, members };
}

function joinValueKind(t: GraphQLInputType): ir.JoinValueKind {
  const named = getNamedType(t);
  if (isEnumType(named)) return 'enum';
  if (isInputObjectType(named) || isListType(isNonNullType(t) ? t.ofType : t)) return 'raw';
  switch (named.name) {
    case 'Int':
      return 'int';
    case 'Float':
      return 'float';
    case 'Boolean':
      return 'boolean';
    case 'String':
    case 'ID':
      return 'string';
    default:
      return 'raw';
  }
}

/**
 * A table's remote relationship selected as `alias` on the rows at `path`
 * (Note [Remote joins] in execute/remote-join.ts), through the role's view
 * of the remote that `join` holds (Note [Remote joins in a role's view] in
 * remote/role-join.ts).
 */
export function toIrRemoteJoin(
  rr: RemoteRelationshipInfo,
  join: RoleJoin,
  def: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  ctx: ToIrContext,
  alias: string,
  path: string,
): ir.RemoteJoin {
  return remoteJoin(rr.remote, join, rr.lhsColumns, def, nodes, ctx, alias, pathKeys(path), `${path}.selectionSet.${alias}`);
}

/** A remote type's relationship to another remote's field, selected as `alias` on the objects at `at`. */
function toIrRemoteTypeJoin(
  d: RemoteTypeFieldDescriptor,
  def: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  ctx: ToIrContext,
  alias: string,
  at: readonly string[],
  path: string,
): ir.RemoteJoin {
  const rel = d.rel;
  const target = d.targetRemote;
  const join = d.targetJoin;
  if (rel.kind !== 'to_remote_schema' || target === undefined || join === undefined)
    throw new EngineError(ErrorCode.Unexpected, 'not a relationship to a remote schema', { path });
  return remoteJoin(target, join, rel.lhsFields, def, nodes, ctx, alias, at, path);
}

/** Writes `value` (a join's argument template) with the presets of `injections` put at their paths; lists are walked through. */
function withPresets(value: unknown, injections: ReadonlyArray<{ readonly path: readonly string[]; readonly text: string }>, depth = 0): unknown {
  if (Array.isArray(value)) return value.map((item) => withPresets(item, injections, depth));
  const here = injections.filter((i) => i.path.length > depth);
  if (here.length === 0 || value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const name of new Set(here.map((i) => i.path[depth] as string))) {
    const own = here.filter((i) => i.path[depth] === name);
    const leaf = own.find((i) => i.path.length === depth + 1);
    out[name] = leaf !== undefined ? new RemoteLiteral(leaf.text) : withPresets(out[name], own, depth + 1);
  }
  return out;
}

/** One path step as the IR holds it: its argument template with the view's presets written in. */
function planStep(step: RoleJoinStep, writer: RemoteFieldWriter): ir.RemoteJoinStep {
  const injections = step.presets.map((p) => ({ path: p.path, text: writer.presetText(p.preset, p.type) }));
  const kinds = Object.fromEntries(Object.entries(step.argumentTypes).map(([a, t]) => [a, joinValueKind(t)]));
  return { field: step.field, arguments: withPresets(step.arguments, injections) as Record<string, unknown>, kinds };
}

function remoteJoin(
  remote: RemoteSchemaInfo,
  join: RoleJoin,
  lhs: readonly string[],
  def: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  ctx: ToIrContext,
  alias: string,
  at: readonly string[],
  path: string,
): ir.RemoteJoin {
  const operation = ctx.operation;
  if (operation === undefined) throw new EngineError(ErrorCode.Unexpected, 'a remote relationship outside an operation', { path });
  const writer = new RemoteFieldWriter(remote, join.view, ctx, operation, path);
  // The path's presets first: the variables they declare must be in the selection's list.
  const steps = join.steps.map((s) => planStep(s, writer));
  const selection = writer.selection(def.type, nodes);
  return {
    kind: 'remote',
    path: at,
    alias,
    remote: remote.name,
    columns: lhs.map((c) => [c, joinColumnKey(c)] as const),
    steps,
    selection,
    nested: writer.joins,
  };
}
