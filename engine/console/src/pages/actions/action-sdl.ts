/**
 * Actions and custom types as GraphQL SDL, as the v2 console edits them: an
 * action is one field of `type Query` or `type Mutation`, custom types are
 * `type` (objects), `input`, `enum` and `scalar` definitions. Parsing uses the
 * `graphql` package; the engine checks the result again when it is saved.
 *
 * Note [Custom types merge by name]
 * `set_custom_types` replaces every custom type, but an action's editor shows
 * only the types that action uses. Saving merges: a type named in the SDL
 * replaces the one of that name (whatever its kind was), every other type is
 * kept. An object's relationships cannot be written in SDL, so an object that
 * is replaced keeps the relationships it had.
 */
import { Kind, parse, print, type DocumentNode, type TypeNode } from 'graphql';
import type { ActionEntry, CustomTypeField, CustomTypes } from '../../metadata-state.tsx';

export interface ParsedAction {
  readonly name: string;
  readonly type: 'query' | 'mutation';
  readonly arguments: ReadonlyArray<{ name: string; type: string; description?: string }>;
  readonly output_type: string;
  readonly description: string | null;
}

function parseSdl(text: string, what: string): DocumentNode {
  try {
    return parse(text, { noLocation: true });
  } catch (e) {
    throw new Error(`The ${what} is not valid GraphQL SDL: ${e instanceof Error ? e.message : String(e)}`);
  }
}

const typeString = (t: TypeNode): string => print(t);

/** `type Mutation { name(args): Output }` → the action's name, kind of root field, arguments and output type. */
export function parseActionSdl(text: string): ParsedAction {
  const doc = parseSdl(text, 'action definition');
  const roots = doc.definitions.filter((d) => d.kind === Kind.OBJECT_TYPE_DEFINITION || d.kind === Kind.OBJECT_TYPE_EXTENSION);
  if (roots.length !== 1 || doc.definitions.length !== 1) throw new Error('The action definition must be one `type Query` or `type Mutation` with one field');
  const root = roots[0]!;
  if (root.kind !== Kind.OBJECT_TYPE_DEFINITION && root.kind !== Kind.OBJECT_TYPE_EXTENSION) throw new Error('unreachable');
  const rootName = root.name.value;
  if (rootName !== 'Query' && rootName !== 'Mutation') throw new Error(`The action definition must be in type Query or type Mutation, not ${rootName}`);
  const fields = root.fields ?? [];
  if (fields.length !== 1) throw new Error('The action definition must have exactly one field: the action');
  const f = fields[0]!;
  return {
    name: f.name.value,
    type: rootName === 'Query' ? 'query' : 'mutation',
    arguments: (f.arguments ?? []).map((a) => ({
      name: a.name.value,
      type: typeString(a.type),
      ...(a.description !== undefined ? { description: a.description.value } : {}),
    })),
    output_type: typeString(f.type),
    description: f.description?.value ?? null,
  };
}

function fieldsOf(
  fields: ReadonlyArray<{ name: { value: string }; type: TypeNode; description?: { value: string } | undefined }> | undefined,
): CustomTypeField[] {
  return (fields ?? []).map((f) => ({
    name: f.name.value,
    type: typeString(f.type),
    ...(f.description !== undefined ? { description: f.description.value } : {}),
  }));
}

/** SDL of `type`, `input`, `enum` and `scalar` definitions → custom types. */
export function parseTypesSdl(text: string): CustomTypes {
  if (text.trim() === '') return {};
  const doc = parseSdl(text, 'type definitions');
  const out: { scalars: unknown[]; enums: unknown[]; input_objects: unknown[]; objects: unknown[] } = {
    scalars: [],
    enums: [],
    input_objects: [],
    objects: [],
  };
  for (const d of doc.definitions) {
    const description = 'description' in d && d.description !== undefined ? { description: d.description.value } : {};
    switch (d.kind) {
      case Kind.SCALAR_TYPE_DEFINITION:
        out.scalars.push({ name: d.name.value, ...description });
        break;
      case Kind.ENUM_TYPE_DEFINITION:
        out.enums.push({
          name: d.name.value,
          ...description,
          values: (d.values ?? []).map((v) => ({ value: v.name.value, ...(v.description !== undefined ? { description: v.description.value } : {}) })),
        });
        break;
      case Kind.INPUT_OBJECT_TYPE_DEFINITION:
        out.input_objects.push({ name: d.name.value, ...description, fields: fieldsOf(d.fields) });
        break;
      case Kind.OBJECT_TYPE_DEFINITION:
        out.objects.push({ name: d.name.value, ...description, fields: fieldsOf(d.fields) });
        break;
      default:
        throw new Error(`Type definitions may hold type, input, enum and scalar definitions only, not ${d.kind}`);
    }
  }
  const result: Record<string, unknown[]> = {};
  for (const [k, v] of Object.entries(out)) if (v.length > 0) result[k] = v;
  return result as CustomTypes;
}

const KINDS = ['scalars', 'enums', 'input_objects', 'objects'] as const;

function namesOf(ct: CustomTypes): Set<string> {
  return new Set(KINDS.flatMap((k) => (ct[k] ?? []).map((t) => t.name)));
}

/** Note [Custom types merge by name]. */
export function mergeTypes(existing: CustomTypes, incoming: CustomTypes): CustomTypes {
  const replaced = namesOf(incoming);
  const out: Record<string, unknown[]> = {};
  for (const k of KINDS) {
    const kept = (existing[k] ?? []).filter((t) => !replaced.has(t.name));
    const added = (incoming[k] ?? []).map((t) => {
      if (k !== 'objects') return t;
      const before = existing.objects?.find((o) => o.name === t.name);
      return before?.relationships !== undefined ? { ...t, relationships: before.relationships } : t;
    });
    const all = [...kept, ...added];
    if (all.length > 0) out[k] = all;
  }
  return out as CustomTypes;
}

const baseName = (t: string): string => t.replace(/[[\]!\s]/g, '');

/** The custom types an action uses, with those their fields use in turn. */
export function typesUsedBy(action: ActionEntry['definition'], ct: CustomTypes): Set<string> {
  const defined = namesOf(ct);
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (!defined.has(name) || seen.has(name)) return;
    seen.add(name);
    const fields = [...(ct.objects ?? []), ...(ct.input_objects ?? [])].find((t) => t.name === name)?.fields ?? [];
    for (const f of fields) visit(baseName(f.type));
  };
  for (const a of action.arguments ?? []) visit(baseName(a.type));
  visit(baseName(action.output_type));
  return seen;
}

function describe(d: string | null | undefined, indent: string): string {
  return d === undefined || d === null || d === '' ? '' : `${indent}"""${d.replace(/"""/g, '\\"""')}"""\n`;
}

function printFields(fields: readonly CustomTypeField[]): string {
  return fields.map((f) => `${describe(f.description, '  ')}  ${f.name}: ${f.type}\n`).join('');
}

/** Custom types (all, or only those named in `only`) as SDL. */
export function typesToSdl(ct: CustomTypes, only: Set<string> | null = null): string {
  const keep = (n: string): boolean => only === null || only.has(n);
  const parts: string[] = [];
  for (const t of ct.objects ?? []) if (keep(t.name)) parts.push(`${describe(t.description, '')}type ${t.name} {\n${printFields(t.fields)}}`);
  for (const t of ct.input_objects ?? []) if (keep(t.name)) parts.push(`${describe(t.description, '')}input ${t.name} {\n${printFields(t.fields)}}`);
  for (const t of ct.enums ?? [])
    if (keep(t.name))
      parts.push(`${describe(t.description, '')}enum ${t.name} {\n${t.values.map((v) => `${describe(v.description, '  ')}  ${v.value}\n`).join('')}}`);
  for (const t of ct.scalars ?? []) if (keep(t.name)) parts.push(`${describe(t.description, '')}scalar ${t.name}`);
  return parts.join('\n\n');
}

/** An action's root field as SDL: `type Mutation {\n  name(a: Int!): Out\n}`. */
export function actionToSdl(name: string, d: ActionEntry['definition'], comment?: string): string {
  const args = (d.arguments ?? []).map((a) => `${a.name}: ${a.type}`).join(', ');
  const root = d.type === 'query' ? 'Query' : 'Mutation';
  return `type ${root} {\n${describe(comment, '  ')}  ${name}${args === '' ? '' : `(${args})`}: ${d.output_type}\n}`;
}
