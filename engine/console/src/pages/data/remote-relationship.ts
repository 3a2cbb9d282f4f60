/**
 * A table's remote relationship as the console's form holds it, and back:
 * to a remote schema (v2's `to_remote_schema`: the remote, the path of
 * fields from its query root with their arguments, a `$column` argument
 * taking the row's column, and `lhs_fields`, the columns used) or to a table
 * of another source (`to_source`: source, table, object or array, target
 * columns by this table's columns). v2's older stored form (`hasura_fields`,
 * `remote_schema`, `remote_field` in the definition) reads as a remote schema
 * target and is saved in the newer form.
 */
import { getNamedType, isEnumType, isScalarType, type GraphQLInputType } from 'graphql';
import type {
  JsonObject,
  JsonValue,
  RemoteFieldLevel,
  RemoteRelationshipMetadata,
  TableNameInput,
  ToRemoteSchema,
  ToSource,
} from '../../../../model/document.ts';

/** An argument passed to a field of the path: a column of the row, or a value as typed. */
export type ArgValue = { readonly from: 'column'; readonly column: string } | { readonly from: 'value'; readonly text: string };

/** One field of the path and the arguments given to it. */
export interface PathStep {
  readonly field: string;
  readonly args: Readonly<Record<string, ArgValue>>;
}

export interface RemoteSchemaForm {
  readonly remote: string;
  readonly steps: readonly PathStep[];
  /** `lhs_fields` as loaded: their order is kept when saved again. */
  readonly lhs: readonly string[];
}

export interface SourceForm {
  readonly source: string;
  /** `schema.name` of the target table (the console's table key). */
  readonly table: string;
  /** The target table as the loaded relationship wrote it, kept while the same table is picked. */
  readonly tableAsWritten: TableNameInput | null;
  readonly type: 'object' | 'array';
  readonly mapping: ReadonlyArray<{ readonly from: string; readonly to: string }>;
}

export interface RelationshipForm {
  readonly name: string;
  readonly target: 'remote_schema' | 'source';
  readonly remoteSchema: RemoteSchemaForm;
  readonly source: SourceForm;
}

export const EMPTY_FORM: RelationshipForm = {
  name: '',
  target: 'remote_schema',
  remoteSchema: { remote: '', steps: [], lhs: [] },
  source: { source: '', table: '', tableAsWritten: null, type: 'object', mapping: [] },
};

function argValue(v: JsonValue, lhs: readonly string[]): ArgValue {
  if (typeof v === 'string' && v.startsWith('$') && lhs.includes(v.slice(1))) return { from: 'column', column: v.slice(1) };
  return { from: 'value', text: typeof v === 'string' ? v : JSON.stringify(v) };
}

function stepsOf(level: RemoteFieldLevel | undefined, lhs: readonly string[]): PathStep[] {
  const out: PathStep[] = [];
  let at = level;
  while (at !== undefined) {
    const [field, spec] = Object.entries(at)[0] ?? [];
    if (field === undefined || spec === undefined) break;
    out.push({ field, args: Object.fromEntries(Object.entries(spec.arguments ?? {}).map(([a, v]) => [a, argValue(v, lhs)])) });
    at = spec.field;
  }
  return out;
}

/** The form for a stored relationship; `tableKeyOf` gives a target table's `schema.name` in its source. */
export function formOf(rel: RemoteRelationshipMetadata, tableKeyOf: (source: string, t: TableNameInput) => string): RelationshipForm {
  const def = rel.definition ?? {};
  const toSource = def.to_source;
  if (toSource !== undefined) {
    const source = toSource.source ?? 'default';
    return {
      ...EMPTY_FORM,
      name: rel.name,
      target: 'source',
      source: {
        source,
        table: tableKeyOf(source, toSource.table),
        tableAsWritten: toSource.table,
        type: toSource.relationship_type,
        mapping: Object.entries(toSource.field_mapping).map(([from, to]) => ({ from, to })),
      },
    };
  }
  const to: Partial<ToRemoteSchema> = def.to_remote_schema ?? {
    remote_schema: def.remote_schema,
    lhs_fields: def.hasura_fields,
    remote_field: def.remote_field,
  };
  const lhs = to.lhs_fields ?? [];
  return { ...EMPTY_FORM, name: rel.name, remoteSchema: { remote: to.remote_schema ?? '', steps: stepsOf(to.remote_field, lhs), lhs } };
}

/** A value typed for an argument of `type`: numbers and booleans for those scalars, JSON for lists and input objects, else the text. */
export function typedArgument(type: GraphQLInputType | undefined, text: string, what: string): JsonValue {
  const named = type === undefined ? undefined : getNamedType(type);
  const list = type !== undefined && type.toString().replace(/!$/, '').startsWith('[');
  if (!list && named !== undefined && (isEnumType(named) || (isScalarType(named) && ['String', 'ID'].includes(named.name)))) return text;
  if (!list && named !== undefined && isScalarType(named) && named.name === 'Int') {
    if (!/^-?\d+$/.test(text.trim())) throw new Error(`${what}: ${JSON.stringify(text)} is not an Int`);
    return Number(text.trim());
  }
  if (!list && named !== undefined && isScalarType(named) && named.name === 'Float') {
    if (text.trim() === '' || !Number.isFinite(Number(text.trim()))) throw new Error(`${what}: ${JSON.stringify(text)} is not a Float`);
    return Number(text.trim());
  }
  if (!list && named !== undefined && isScalarType(named) && named.name === 'Boolean') {
    if (text.trim() !== 'true' && text.trim() !== 'false') throw new Error(`${what}: ${JSON.stringify(text)} is not true or false`);
    return text.trim() === 'true';
  }
  // A list, an input object or a custom scalar: JSON, or the text when it is not JSON (a custom scalar's string).
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    if (named !== undefined && isScalarType(named)) return text;
    throw new Error(`${what}: not JSON (${named?.name ?? 'its type'} is an input object or a list)`);
  }
}

function columnRefs(v: JsonValue, out: string[]): void {
  if (typeof v === 'string' && v.startsWith('$') && !out.includes(v.slice(1))) out.push(v.slice(1));
  else if (Array.isArray(v)) for (const x of v) columnRefs(x, out);
  else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) columnRefs(x, out);
}

/** The `to_remote_schema` the form says; `argType` gives an argument's type at a step (for typed values). */
export function toRemoteSchema(f: RemoteSchemaForm, argType: (step: number, arg: string) => GraphQLInputType | undefined): ToRemoteSchema {
  if (f.remote === '') throw new Error('Pick the remote schema.');
  if (f.steps.length === 0 || f.steps.some((s) => s.field === '')) throw new Error('Pick the remote field.');
  const argsAt = f.steps.map((s, i) => {
    const args: Record<string, JsonValue> = {};
    for (const [a, v] of Object.entries(s.args)) {
      args[a] = v.from === 'column' ? `$${v.column}` : typedArgument(argType(i, a), v.text, `Argument ${a} of ${s.field}`);
    }
    return args;
  });
  let level: RemoteFieldLevel | undefined;
  for (let i = f.steps.length - 1; i >= 0; i--) {
    const args = argsAt[i]!;
    level = {
      [f.steps[i]!.field]: { ...(Object.keys(args).length > 0 ? { arguments: args as JsonObject } : {}), ...(level !== undefined ? { field: level } : {}) },
    };
  }
  const used: string[] = [];
  for (const args of argsAt) columnRefs(args, used);
  if (used.length === 0) throw new Error('Pass at least one column of the table as an argument: the remote field is joined on it.');
  // The loaded order first, so a relationship saved unchanged stays as it was.
  const lhs = [...f.lhs.filter((c) => used.includes(c)), ...used.filter((c) => !f.lhs.includes(c))];
  return { remote_schema: f.remote, lhs_fields: lhs, remote_field: level! };
}

/** The `to_source` the form says; `wireTableOf` writes the picked table as the target source's operations take it. */
export function toSource(f: SourceForm, wireTableOf: (source: string, key: string) => TableNameInput | null): ToSource {
  if (f.source === '') throw new Error('Pick the source of the target table.');
  const table = f.tableAsWritten ?? wireTableOf(f.source, f.table);
  if (f.table === '' || table === null) throw new Error('Pick the target table.');
  const rows = f.mapping.filter((m) => m.from !== '' || m.to !== '');
  if (rows.length === 0 || rows.some((m) => m.from === '' || m.to === '')) throw new Error('Map each column of this table to a column of the target table.');
  return { source: f.source, table, relationship_type: f.type, field_mapping: Object.fromEntries(rows.map((m) => [m.from, m.to])) };
}
