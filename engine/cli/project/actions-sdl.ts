/**
 * Actions and custom types as v2's client keeps them: the GraphQL part in `actions.graphql` (each
 * action a field of `type Query` or `type Mutation`, and the custom types with their fields), the
 * rest in `actions.yaml` (handlers, kinds, headers, transforms, permissions, comments; the custom
 * types by name with their descriptions and relationships). graphql-js parses and prints the SDL.
 *
 * Note [Actions split like v2]
 * v2 turns the two files into metadata by taking each action's arguments, output type and
 * query/mutation from the SDL and everything else of its definition from the YAML (an action in
 * the YAML but not in the SDL is an error, as in v2); a custom type's fields come from the SDL and
 * its description and relationships from the YAML. Export is the inverse. Descriptions of types
 * are written to both files (as v2 does); the YAML's wins when they differ.
 */
import {
  Kind,
  parse,
  parseType,
  print,
  type ConstDirectiveNode,
  type DefinitionNode,
  type DocumentNode,
  type FieldDefinitionNode,
  type InputValueDefinitionNode,
  type StringValueNode,
} from 'graphql';
import { UsageError } from './output.ts';

type Obj = Record<string, unknown>;

const SDL_DEFINITION_KEYS = new Set(['arguments', 'output_type', 'type']);
const TYPE_KINDS = ['enums', 'input_objects', 'objects', 'scalars'] as const;

function objects(v: unknown): Obj[] {
  return Array.isArray(v) ? (v.filter((x) => typeof x === 'object' && x !== null) as Obj[]) : [];
}

function description(v: unknown): StringValueNode | undefined {
  return typeof v === 'string' && v !== '' ? { kind: Kind.STRING, value: v, block: true } : undefined;
}

function name(value: string): { kind: Kind.NAME; value: string } {
  return { kind: Kind.NAME, value };
}

function typeRef(t: unknown, where: string): ReturnType<typeof parseType> {
  try {
    return parseType(String(t));
  } catch (e) {
    throw new UsageError(`${where}: "${String(t)}" is not a GraphQL type (${(e as Error).message})`);
  }
}

function inputValue(a: Obj, where: string): InputValueDefinitionNode {
  return { kind: Kind.INPUT_VALUE_DEFINITION, name: name(String(a['name'])), type: typeRef(a['type'], where), description: description(a['description']) };
}

/** actions + custom_types (wire form) → the `actions.graphql` text ('' when there are none). */
export function actionsToSdl(actions: readonly Obj[], customTypes: Obj | null): string {
  const defs: DefinitionNode[] = [];
  for (const a of actions) {
    const def = (a['definition'] ?? {}) as Obj;
    const where = `action ${String(a['name'])}`;
    const field: FieldDefinitionNode = {
      kind: Kind.FIELD_DEFINITION,
      name: name(String(a['name'])),
      arguments: objects(def['arguments']).map((x) => inputValue(x, where)),
      type: typeRef(def['output_type'], where),
    };
    defs.push({ kind: Kind.OBJECT_TYPE_DEFINITION, name: name(def['type'] === 'query' ? 'Query' : 'Mutation'), fields: [field] });
  }
  const ct = customTypes ?? {};
  for (const t of objects(ct['objects'])) {
    defs.push({
      kind: Kind.OBJECT_TYPE_DEFINITION,
      name: name(String(t['name'])),
      description: description(t['description']),
      fields: objects(t['fields']).map((f) => ({
        kind: Kind.FIELD_DEFINITION,
        name: name(String(f['name'])),
        description: description(f['description']),
        type: typeRef(f['type'], `type ${String(t['name'])}`),
      })),
    });
  }
  for (const t of objects(ct['input_objects'])) {
    defs.push({
      kind: Kind.INPUT_OBJECT_TYPE_DEFINITION,
      name: name(String(t['name'])),
      description: description(t['description']),
      fields: objects(t['fields']).map((f) => inputValue(f, `input ${String(t['name'])}`)),
    });
  }
  for (const t of objects(ct['enums'])) {
    defs.push({
      kind: Kind.ENUM_TYPE_DEFINITION,
      name: name(String(t['name'])),
      description: description(t['description']),
      values: objects(t['values']).map((v) => {
        const directives: ConstDirectiveNode[] = v['is_deprecated'] === true ? [{ kind: Kind.DIRECTIVE, name: name('deprecated') }] : [];
        return { kind: Kind.ENUM_VALUE_DEFINITION, name: name(String(v['value'])), description: description(v['description']), directives };
      }),
    });
  }
  for (const t of objects(ct['scalars'])) {
    defs.push({ kind: Kind.SCALAR_TYPE_DEFINITION, name: name(String(t['name'])), description: description(t['description']) });
  }
  if (defs.length === 0) return '';
  const doc: DocumentNode = { kind: Kind.DOCUMENT, definitions: defs };
  return print(doc) + '\n';
}

/** The `actions.yaml` document: what the SDL does not say (Note [Actions split like v2]). */
export function actionsYaml(actions: readonly Obj[], customTypes: Obj | null): Obj {
  const ct = customTypes ?? {};
  const types: Obj = {};
  for (const k of TYPE_KINDS) {
    types[k] = objects(ct[k]).map((t) => {
      const out: Obj = {};
      for (const [key, v] of Object.entries(t)) if (key !== 'fields') out[key] = v;
      return out;
    });
  }
  return {
    actions: actions.map((a) => {
      const out: Obj = {};
      for (const [key, v] of Object.entries(a)) {
        if (key !== 'definition') out[key] = v;
        else {
          const def: Obj = {};
          for (const [dk, dv] of Object.entries((v ?? {}) as Obj)) if (!SDL_DEFINITION_KEYS.has(dk)) def[dk] = dv;
          out[key] = def;
        }
      }
      return out;
    }),
    custom_types: types,
  };
}

interface SdlParts {
  readonly actions: Map<string, { type: 'query' | 'mutation'; arguments: Obj[]; output_type: string }>;
  readonly types: Record<(typeof TYPE_KINDS)[number], Map<string, Obj>>;
}

function withDescription(out: Obj, d: StringValueNode | undefined): Obj {
  if (d !== undefined) out['description'] = d.value;
  return out;
}

function argOf(v: InputValueDefinitionNode): Obj {
  return withDescription({ name: v.name.value, type: print(v.type) }, v.description);
}

function parseSdl(sdl: string, file: string): SdlParts {
  const parts: SdlParts = {
    actions: new Map(),
    types: { enums: new Map(), input_objects: new Map(), objects: new Map(), scalars: new Map() },
  };
  if (sdl.trim() === '') return parts;
  let doc: DocumentNode;
  try {
    doc = parse(sdl);
  } catch (e) {
    throw new UsageError(`${file}: ${(e as Error).message}`);
  }
  for (const d of doc.definitions) {
    if ((d.kind === Kind.OBJECT_TYPE_DEFINITION || d.kind === Kind.OBJECT_TYPE_EXTENSION) && (d.name.value === 'Query' || d.name.value === 'Mutation')) {
      for (const f of d.fields ?? []) {
        parts.actions.set(f.name.value, {
          type: d.name.value === 'Query' ? 'query' : 'mutation',
          arguments: (f.arguments ?? []).map(argOf),
          output_type: print(f.type),
        });
      }
    } else if (d.kind === Kind.OBJECT_TYPE_DEFINITION) {
      const fields = (d.fields ?? []).map((f) => withDescription({ name: f.name.value, type: print(f.type) }, f.description));
      parts.types.objects.set(d.name.value, withDescription({ name: d.name.value, fields }, d.description));
    } else if (d.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION) {
      parts.types.input_objects.set(d.name.value, withDescription({ name: d.name.value, fields: (d.fields ?? []).map(argOf) }, d.description));
    } else if (d.kind === Kind.ENUM_TYPE_DEFINITION) {
      const values = (d.values ?? []).map((v) => {
        const out = withDescription({ value: v.name.value }, v.description);
        if ((v.directives ?? []).some((x) => x.name.value === 'deprecated')) out['is_deprecated'] = true;
        return out;
      });
      parts.types.enums.set(d.name.value, withDescription({ name: d.name.value, values }, d.description));
    } else if (d.kind === Kind.SCALAR_TYPE_DEFINITION) {
      parts.types.scalars.set(d.name.value, withDescription({ name: d.name.value }, d.description));
    } else {
      throw new UsageError(`${file}: ${d.kind} is not an action or a custom type`);
    }
  }
  return parts;
}

/** actions.yaml + actions.graphql → `actions` and `custom_types` (Note [Actions split like v2]). */
export function actionsFromFiles(yamlDoc: unknown, sdl: string, files: { yaml: string; graphql: string }): { actions: Obj[]; custom_types: Obj } {
  const y = (yamlDoc ?? {}) as Obj;
  const parts = parseSdl(sdl, files.graphql);
  const actions = objects(y['actions']).map((a) => {
    const n = String(a['name']);
    const fromSdl = parts.actions.get(n);
    if (fromSdl === undefined)
      throw new UsageError(`action ${n} of ${files.yaml} is not in ${files.graphql}: add it there as a field of type Mutation or Query`);
    parts.actions.delete(n);
    const out: Obj = {};
    for (const [k, v] of Object.entries(a)) {
      out[k] = k === 'definition' ? { ...((v ?? {}) as Obj), type: fromSdl.type, arguments: fromSdl.arguments, output_type: fromSdl.output_type } : v;
    }
    if (out['definition'] === undefined) out['definition'] = { type: fromSdl.type, arguments: fromSdl.arguments, output_type: fromSdl.output_type };
    return out;
  });
  if (parts.actions.size > 0) {
    const n = [...parts.actions.keys()].join(', ');
    throw new UsageError(`${files.graphql} defines action(s) ${n} that ${files.yaml} does not: add each to its actions with a definition (handler, kind)`);
  }
  const yTypes = (y['custom_types'] ?? {}) as Obj;
  const customTypes: Obj = {};
  for (const k of TYPE_KINDS) {
    const fromSdl = parts.types[k];
    const list: Obj[] = [];
    for (const t of objects(yTypes[k])) {
      const n = String(t['name']);
      const s = fromSdl.get(n);
      if (s === undefined) throw new UsageError(`custom type ${n} of ${files.yaml} is not in ${files.graphql}`);
      fromSdl.delete(n);
      const merged: Obj = { ...s };
      for (const [key, v] of Object.entries(t)) if (key !== 'fields' && key !== 'values') merged[key] = v;
      list.push(merged);
    }
    list.push(...fromSdl.values());
    customTypes[k] = list;
  }
  return { actions, custom_types: customTypes };
}
