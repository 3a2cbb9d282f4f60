/**
 * Remote schema permissions (spec "Remote schema permission rules"): a
 * role's view of a remote schema is a GraphQL schema document that may leave
 * out fields, arguments, enum values, union members and input fields of the
 * remote schema, never change a type, and give arguments and input fields a
 * `@preset(value:, static:)`. This module validates such a document against
 * the introspected remote schema and builds the role's restricted schema
 * (preset arguments and input fields removed, to be injected at execution).
 */
import {
  buildASTSchema,
  GraphQLError,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
  Kind,
  parse,
  print,
  valueFromASTUntyped,
  visit,
  type DocumentNode,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type InputValueDefinitionNode,
} from 'graphql';
import { sessionVariableOf } from '../auth/headers.ts';

/** A preset of an argument or input field: a static value or a session variable. */
export type Preset = { readonly kind: 'static'; readonly value: unknown } | { readonly kind: 'session'; readonly name: string };

/** Presets keyed by `Type.field.arg` (arguments) or `Input.field` (input fields), original names. */
export type Presets = ReadonlyMap<string, Preset>;

/** A validated role view of a remote schema (original names). */
export interface RestrictedSchema {
  readonly schema: GraphQLSchema;
  readonly presets: Presets;
}

function presetOf(node: InputValueDefinitionNode): Preset | null {
  const d = node.directives?.find((x) => x.name.value === 'preset');
  if (d === undefined) return null;
  const valueArg = d.arguments?.find((a) => a.name.value === 'value');
  if (valueArg === undefined) throw new Error(`@preset on "${node.name.value}" has no value`);
  const staticArg = d.arguments?.find((a) => a.name.value === 'static');
  const isStatic = staticArg !== undefined && staticArg.value.kind === Kind.BOOLEAN && staticArg.value.value;
  const value = valueFromASTUntyped(valueArg.value);
  const session = isStatic ? null : sessionVariableOf(value);
  if (session !== null) return { kind: 'session', name: session };
  return { kind: 'static', value };
}

/** The presets of `doc`, and `doc` without the preset arguments and input fields (and without @preset anywhere). */
function extractPresets(doc: DocumentNode): { presets: Map<string, Preset>; stripped: DocumentNode; withArgs: DocumentNode } {
  const presets = new Map<string, Preset>();
  const note = (key: string, node: InputValueDefinitionNode): boolean => {
    const p = presetOf(node);
    if (p !== null) presets.set(key, p);
    return p !== null;
  };
  for (const def of doc.definitions) {
    if (def.kind === Kind.OBJECT_TYPE_DEFINITION || def.kind === Kind.INTERFACE_TYPE_DEFINITION) {
      for (const f of def.fields ?? []) for (const a of f.arguments ?? []) note(`${def.name.value}.${f.name.value}.${a.name.value}`, a);
    } else if (def.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION) {
      for (const f of def.fields ?? []) note(`${def.name.value}.${f.name.value}`, f);
    } else if (def.kind === Kind.DIRECTIVE_DEFINITION && def.name.value === 'preset') {
      throw new Error('the @preset directive is built in and may not be defined');
    }
  }
  const noDirective = (n: InputValueDefinitionNode): InputValueDefinitionNode => ({ ...n, directives: n.directives?.filter((d) => d.name.value !== 'preset') });
  const withArgs = visit(doc, { InputValueDefinition: (n) => noDirective(n) });
  const stripped = visit(doc, { InputValueDefinition: (n) => (presetOf(n) !== null ? null : noDirective(n)) });
  return { presets, stripped, withArgs };
}

function rootPairs(perm: GraphQLSchema, remote: GraphQLSchema): Array<[GraphQLObjectType, GraphQLObjectType | null | undefined]> {
  const pairs: Array<[GraphQLObjectType, GraphQLObjectType | null | undefined]> = [];
  const q = perm.getQueryType();
  if (q) pairs.push([q, remote.getQueryType()]);
  const m = perm.getMutationType();
  if (m) pairs.push([m, remote.getMutationType()]);
  const s = perm.getSubscriptionType();
  if (s) pairs.push([s, remote.getSubscriptionType()]);
  return pairs;
}

function kindOf(t: GraphQLNamedType): string {
  if (isObjectType(t)) return 'object';
  if (isInterfaceType(t)) return 'interface';
  if (isUnionType(t)) return 'union';
  if (isEnumType(t)) return 'enum';
  if (isInputObjectType(t)) return 'input object';
  return 'scalar';
}

function requiredWithoutDefault(a: GraphQLArgument | GraphQLInputField): boolean {
  return isNonNullType(a.type) && a.defaultValue === undefined;
}

/** Checks one field of a permission type against the remote's field of the same name. */
function checkField(where: string, f: GraphQLField<unknown, unknown>, r: GraphQLField<unknown, unknown> | undefined, presets: Presets, errors: string[]): void {
  if (r === undefined) {
    errors.push(`field "${f.name}" does not exist in type "${where}" of the remote schema`);
    return;
  }
  if (String(f.type) !== String(r.type)) errors.push(`field "${where}.${f.name}" has type "${String(f.type)}", the remote schema's is "${String(r.type)}"`);
  for (const a of f.args) {
    const ra = r.args.find((x) => x.name === a.name);
    if (ra === undefined) errors.push(`argument "${a.name}" of field "${where}.${f.name}" does not exist in the remote schema`);
    else if (String(a.type) !== String(ra.type))
      errors.push(`argument "${where}.${f.name}(${a.name})" has type "${String(a.type)}", the remote schema's is "${String(ra.type)}"`);
  }
  for (const ra of r.args) {
    if (requiredWithoutDefault(ra) && !f.args.some((a) => a.name === ra.name) && !presets.has(`${where}.${f.name}.${ra.name}`)) {
      errors.push(`field "${where}.${f.name}" hides its required argument "${ra.name}" without a preset: remove the field`);
    }
  }
}

/** Why `perm` is not a restriction of `remote`, as messages (empty when it is). */
function validateRestriction(perm: GraphQLSchema, remote: GraphQLSchema, presets: Presets): string[] {
  const errors: string[] = [];
  const roots = rootPairs(perm, remote);
  const rootNames = new Set(roots.map(([p]) => p.name));
  for (const [p, r] of roots) {
    if (r === null || r === undefined) {
      errors.push(`the remote schema has no root type for "${p.name}"`);
      continue;
    }
    const rf = r.getFields();
    for (const f of Object.values(p.getFields())) checkField(p.name, f, rf[f.name], presets, errors);
  }
  for (const t of Object.values(perm.getTypeMap())) {
    if (
      t.name.startsWith('__') ||
      rootNames.has(t.name) ||
      (isScalarType(t) && remote.getType(t.name) === undefined && ['String', 'Int', 'Float', 'Boolean', 'ID'].includes(t.name))
    )
      continue;
    const r = remote.getType(t.name);
    if (r === undefined || r === null) {
      errors.push(`type "${t.name}" does not exist in the remote schema`);
      continue;
    }
    if (kindOf(t) !== kindOf(r)) {
      errors.push(`type "${t.name}" is a ${kindOf(t)} here and a ${kindOf(r)} in the remote schema`);
      continue;
    }
    if ((isObjectType(t) || isInterfaceType(t)) && (isObjectType(r) || isInterfaceType(r))) {
      const rf = r.getFields();
      for (const f of Object.values(t.getFields())) checkField(t.name, f, rf[f.name], presets, errors);
      const ri = new Set(r.getInterfaces().map((i) => i.name));
      for (const i of t.getInterfaces()) if (!ri.has(i.name)) errors.push(`type "${t.name}" does not implement "${i.name}" in the remote schema`);
    } else if (isUnionType(t) && isUnionType(r)) {
      const members = new Set(r.getTypes().map((m) => m.name));
      for (const m of t.getTypes()) if (!members.has(m.name)) errors.push(`"${m.name}" is not a member of union "${t.name}" in the remote schema`);
    } else if (isEnumType(t) && isEnumType(r)) {
      const values = new Set(r.getValues().map((v) => v.name));
      for (const v of t.getValues()) if (!values.has(v.name)) errors.push(`enum value "${t.name}.${v.name}" does not exist in the remote schema`);
    } else if (isInputObjectType(t) && isInputObjectType(r)) {
      const rf = r.getFields();
      for (const f of Object.values(t.getFields())) {
        const x = rf[f.name];
        if (x === undefined) errors.push(`input field "${t.name}.${f.name}" does not exist in the remote schema`);
        else if (String(x.type) !== String(f.type))
          errors.push(`input field "${t.name}.${f.name}" has type "${String(f.type)}", the remote schema's is "${String(x.type)}"`);
      }
      for (const x of Object.values(rf)) {
        if (requiredWithoutDefault(x) && t.getFields()[x.name] === undefined && !presets.has(`${t.name}.${x.name}`)) {
          errors.push(`input object "${t.name}" hides its required field "${x.name}" without a preset`);
        }
      }
    }
  }
  return errors;
}

/** Parses and validates a permission's schema document against `remote`; the restricted schema, or why not. */
export function resolveRemotePermission(sdl: string, remote: GraphQLSchema): RestrictedSchema | { readonly reason: string } {
  let doc: DocumentNode;
  try {
    doc = parse(sdl);
  } catch (e) {
    return { reason: `the permission's schema does not parse: ${e instanceof GraphQLError ? e.message : String(e)}` };
  }
  try {
    const { presets, stripped, withArgs } = extractPresets(doc);
    const full = buildASTSchema(withArgs);
    const errors = validateRestriction(full, remote, presets);
    if (errors.length > 0) return { reason: errors.join('; ') };
    return { schema: buildASTSchema(stripped), presets };
  } catch (e) {
    return { reason: `the permission's schema is not valid: ${e instanceof Error ? e.message : String(e)}` };
  }
}

type Named = { readonly name: { readonly value: string } };

function unionByName<T extends Named>(a: readonly T[] | undefined, b: readonly T[] | undefined, merge: (x: T, y: T) => T): T[] {
  const out = new Map<string, T>();
  for (const x of a ?? []) out.set(x.name.value, x);
  for (const y of b ?? []) {
    const x = out.get(y.name.value);
    out.set(y.name.value, x === undefined ? y : merge(x, y));
  }
  return [...out.values()];
}

function sameInputValue(x: InputValueDefinitionNode, y: InputValueDefinitionNode): InputValueDefinitionNode {
  // Presets must agree: a role set cannot decide between two values.
  const px = JSON.stringify(presetOf(x));
  const py = JSON.stringify(presetOf(y));
  if (px !== py) throw new Error(`the roles set different presets on "${x.name.value}"`);
  return x;
}

/**
 * The permission document of an inherited role: the union of its members'
 * documents (every type, field, argument, enum value, union member and input
 * field any of them shows). v2 compat: members that preset the same argument
 * differently make it inconsistent (an Error with the reason).
 */
export function unionPermissionDocuments(sdls: readonly string[]): string {
  const types = new Map<string, DocumentNode['definitions'][number]>();
  for (const sdl of sdls) {
    for (const def of parse(sdl).definitions) {
      if (!('name' in def) || def.name === undefined) continue;
      const name = def.name.value;
      const known = types.get(name);
      if (known === undefined) {
        types.set(name, def);
        continue;
      }
      if (known.kind !== def.kind) throw new Error(`the roles define "${name}" as different kinds of type`);
      if ((def.kind === Kind.OBJECT_TYPE_DEFINITION || def.kind === Kind.INTERFACE_TYPE_DEFINITION) && known.kind === def.kind) {
        const fields = unionByName(known.fields, def.fields, (x, y) => ({ ...x, arguments: unionByName(x.arguments, y.arguments, sameInputValue) }));
        types.set(name, { ...known, fields, interfaces: unionByName(known.interfaces, def.interfaces, (x) => x) } as typeof def);
      } else if (def.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION && known.kind === def.kind) {
        types.set(name, { ...known, fields: unionByName(known.fields, def.fields, sameInputValue) });
      } else if (def.kind === Kind.ENUM_TYPE_DEFINITION && known.kind === def.kind) {
        types.set(name, { ...known, values: unionByName(known.values, def.values, (x) => x) });
      } else if (def.kind === Kind.UNION_TYPE_DEFINITION && known.kind === def.kind) {
        types.set(name, { ...known, types: unionByName(known.types, def.types, (x) => x) });
      }
    }
  }
  return print({ kind: Kind.DOCUMENT, definitions: [...types.values()] });
}
