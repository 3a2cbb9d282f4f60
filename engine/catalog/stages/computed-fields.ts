/**
 * Stage "computed fields": a table's computed field entries + the source's
 * introspected functions → {@link ComputedFieldInfo}, or why each is
 * inconsistent. The function must exist once, take the table's row (the
 * first argument, or `table_argument`), and return a base-like value or rows
 * of a tracked table. Runs after relationships (names must not collide) and
 * before permissions (which may name computed fields).
 */
import type { TableNaming } from '../../backends/backend.ts';
import type { IntrospectedFunction } from '../../backends/introspection.ts';
import type { ComputedFieldMetadata, TableMetadata } from '../../model/document.ts';
import { sourceInconsistency } from '../inconsistency.ts';
import { functionArgsTypeName } from '../graphql-names.ts';
import { tableKey, type ColumnInfo, type ComputedFieldInfo, type InconsistentObject, type QualifiedName, type SourceCustomizationInfo } from '../types.ts';
import { customizeTypeName } from './customization.ts';
import { checkSessionArgument, graphqlArguments, singleFunction } from './functions.ts';
import type { NameRegistry } from './names.ts';
import type { RelationshipsBySource } from './relationships.ts';
import type { ResolvedSource } from './sources.ts';
import type { StageResult } from './stage.ts';
import { isSchemaName, type TableDraft } from './tables.ts';
import type { TablesBySource } from './tracked-tables.ts';

/** Resolves one computed field of `table`; `isTracked` says whether a table is tracked and consistent. */
export function resolveComputedField(
  table: TableDraft,
  entry: ComputedFieldMetadata,
  functions: ReadonlyMap<string, readonly IntrospectedFunction[]> | undefined,
  isTracked: (t: QualifiedName) => boolean,
): ComputedFieldInfo | { reason: string } {
  const naming = table.naming;
  const name = naming.parse(entry.definition.function);
  const fn = singleFunction(name, functions?.get(tableKey(name)), naming);
  if ('reason' in fn) return fn;
  const text = `in table "${naming.format(table.entry.table)}": computed field "${entry.name}"`;
  if (!isSchemaName(entry.name)) return { reason: `${text}: the name is not a valid GraphQL name` };
  const wanted = entry.definition.table_argument ?? null;
  const rowIndex = wanted === null ? 0 : fn.args.findIndex((a) => a.name === wanted);
  const rowArg = fn.args[rowIndex];
  if (rowArg === undefined) {
    return {
      reason: wanted === null ? `${text}: the function "${naming.format(name)}" has no input arguments` : `${text}: table argument "${wanted}" not found`,
    };
  }
  const t = table.entry.table;
  if (rowArg.typeCategory !== 'composite' || rowArg.dbType !== t.name) {
    return {
      reason: `${text}: the argument "${rowArg.name ?? String(rowIndex + 1)}" of function "${naming.format(name)}" should be of type "${naming.format(t)}"`,
    };
  }
  const session = entry.definition.session_argument ?? null;
  const bad = checkSessionArgument(`${text}: function "${naming.format(name)}"`, fn.args, session, table.scalar);
  if (bad !== null) return bad;
  if (rowIndex !== 0 && rowArg.name === null) return { reason: `${text}: an unnamed table argument must come first` };
  const skip = new Set<string>([...(session === null ? [] : [session]), ...(rowArg.name === null ? [] : [rowArg.name])]);
  const args = graphqlArguments(`${text}: function "${naming.format(name)}"`, fn.args, skip, rowIndex);
  if ('reason' in args) return args;
  let returns: ComputedFieldInfo['returns'];
  if (fn.returnTable !== null) {
    if (!isTracked(fn.returnTable)) {
      return { reason: `${text}: the function returns rows of "${naming.format(fn.returnTable)}", which is not tracked` };
    }
    returns = { kind: 'table', table: fn.returnTable, returnsSet: fn.returnsSet };
  } else if (fn.returnsSet) {
    return { reason: `${text}: functions returning SETOF a scalar type are not supported` };
  } else if (fn.returnType.typeCategory === 'pseudo' || fn.returnType.typeCategory === 'composite') {
    return { reason: `${text}: the function's return type "${fn.returnType.name}" is not supported` };
  } else {
    const array = fn.returnType.name.startsWith('_');
    returns = {
      kind: 'scalar',
      dbType: fn.returnType.name,
      elementType: array ? fn.returnType.name.slice(1) : null,
      typeCategory: fn.returnType.typeCategory,
    };
  }
  return {
    name: entry.name,
    function: name,
    description: entry.comment ?? fn.comment,
    // A named row argument still goes by position when it is first: named notation must follow positional.
    tableArgument: rowIndex === 0 ? null : rowArg.name,
    sessionArgument: session,
    args,
    returns,
  };
}

/**
 * Note [Computed fields by argument mapping]
 * v2's BigQuery computed fields (DDL/ComputedField.hs) call a
 * TABLE_VALUED_FUNCTION with some of the row's columns by name
 * (`argument_mapping: {argument: column}`); the other arguments are the
 * field's `args`. A function declared without `RETURNS TABLE` needs
 * `return_table`, a tracked table whose rows it returns; one declared with it
 * returns its own columns, which v2 exposes as a new object type and the
 * engine does not yet (such a field is inconsistent, saying so). Reasons are
 * v2's, after "the computed field ... cannot be added to table ...".
 */
export function resolveMappedComputedField(
  table: TableDraft,
  entry: ComputedFieldMetadata,
  functions: ReadonlyMap<string, readonly IntrospectedFunction[]> | undefined,
  isTracked: (t: QualifiedName) => boolean,
): ComputedFieldInfo | { reason: string } {
  const naming = table.naming;
  const name = naming.parse(entry.definition.function);
  const fnText = `"${naming.format(name)}"`;
  // BigQuery has no overloads: one routine per name.
  const fn = functions?.get(tableKey(name))?.[0];
  if (fn === undefined) return { reason: `no such function exists: ${fnText}` };
  const tableText = `"${naming.format(table.entry.table)}"`;
  const reasons: string[] = [];
  const done = (): { reason: string } => ({
    reason:
      `the computed field "${entry.name}" cannot be added to table ${tableText} ` +
      (reasons.length === 1 ? `because ${reasons[0] ?? ''}` : `for the following reasons: \n${reasons.map((r) => `  • ${r}\n`).join('')}`),
  });
  if (!isSchemaName(entry.name)) return { reason: `in table ${tableText}: computed field "${entry.name}": the name is not a valid GraphQL name` };
  if (entry.definition.table_argument != null || entry.definition.session_argument != null) {
    return { reason: `in table ${tableText}: computed field "${entry.name}": "table_argument" and "session_argument" are not supported on this source` };
  }
  if (!fn.returnsSet) reasons.push(`function ${fnText} is not a TABLE_VALUED_FUNCTION`);
  if (fn.args.length === 0) {
    reasons.push(`function ${fnText} has no input arguments defined`);
    return done();
  }
  if (fn.args.some((a) => a.name === null)) {
    reasons.push(`function ${fnText} has at least one argument without name`);
    return done();
  }
  const untyped = fn.args.find((a) => a.typeCategory === 'pseudo');
  if (untyped !== undefined) {
    reasons.push(`argument "${untyped.name ?? ''}" has no data type defined in the function ${fnText}`);
    return done();
  }
  const mapping = entry.definition.argument_mapping ?? {};
  for (const [arg, column] of Object.entries(mapping)) {
    if (!fn.args.some((a) => a.name === arg)) reasons.push(`the argument "${arg}" is not one of function ${fnText} input arguments`);
    if (!table.columns.some((c) => c.name === column)) reasons.push(`the column "${column}" does not exist in table ${tableText}`);
  }
  const rt = entry.definition.return_table ?? null;
  const returnTable = rt === null ? null : naming.parse(rt);
  if (fn.returnColumns !== undefined && returnTable !== null) {
    reasons.push(`return table "${naming.format(returnTable)}" is not required as the function ${fnText} returns arbitrary column fields`);
  } else if (fn.returnColumns !== undefined) {
    reasons.push(`function ${fnText} returns the columns of its RETURNS TABLE, which the engine does not support yet`);
  } else if (returnTable === null) {
    reasons.push(`function ${fnText} is not defined with 'RETURNS TABLE'. Expecting return table name.`);
  } else if (!isTracked(returnTable)) {
    reasons.push(`function ${fnText} returning set of table "${naming.format(returnTable)}" is not tracked`);
  }
  if (reasons.length > 0 || returnTable === null) return done();
  const args = graphqlArguments(`in table ${tableText}: computed field "${entry.name}": function ${fnText}`, fn.args, new Set(Object.keys(mapping)));
  if ('reason' in args) return args;
  return {
    name: entry.name,
    function: name,
    description: entry.comment ?? fn.comment,
    tableArgument: null,
    sessionArgument: null,
    args,
    returns: { kind: 'table', table: returnTable, returnsSet: true },
    argumentMapping: mapping,
  };
}

/** Resolves every computed field of one table entry, reporting the inconsistent ones. */
export function resolveTableComputedFields(
  source: string,
  naming: TableNaming,
  entry: TableMetadata,
  draft: TableDraft | undefined,
  relationshipNames: ReadonlySet<string>,
  functions: ReadonlyMap<string, readonly IntrospectedFunction[]> | undefined,
  isTracked: (t: QualifiedName) => boolean,
  names: { readonly registry: NameRegistry; readonly customization: SourceCustomizationInfo },
  inputs?: 'argument-mapping',
): StageResult<ComputedFieldInfo[]> {
  const bad: InconsistentObject[] = [];
  const out: ComputedFieldInfo[] = [];
  for (const cf of entry.computed_fields) {
    const ref = { kind: 'computed_field', source, table: entry.table, name: cf.name } as const;
    const definition = { name: cf.name, source, table: entry.table, definition: cf.definition, comment: cf.comment ?? null };
    if (draft === undefined) {
      bad.push(sourceInconsistency(naming, ref, definition, `table "${naming.format(entry.table)}" is inconsistent`));
      continue;
    }
    const taken =
      relationshipNames.has(cf.name) || out.some((o) => o.name === cf.name) || draft.columns.some((c) => c.name === cf.name || c.gqlName === cf.name);
    if (taken) {
      bad.push(sourceInconsistency(naming, ref, definition, `in table "${naming.format(entry.table)}": field "${cf.name}" already exists`));
      continue;
    }
    let r: ComputedFieldInfo | { reason: string };
    if (inputs === 'argument-mapping') r = resolveMappedComputedField(draft, cf, functions, isTracked);
    else if (cf.definition.argument_mapping !== undefined || cf.definition.return_table != null) {
      r = {
        reason: `in table "${naming.format(entry.table)}": computed field "${cf.name}": "argument_mapping" and "return_table" are not supported on this source`,
      };
    } else r = resolveComputedField(draft, cf, functions, isTracked);
    if ('reason' in r) {
      bad.push(sourceInconsistency(naming, ref, definition, r.reason));
      continue;
    }
    // `<fn>_args` (when the field takes arguments) is a global type name, shared with the function's other uses.
    if (r.args.length > 0) {
      const owner = `function "${naming.format(r.function)}" in source "${source}"`;
      const clash = names.registry.claimShared(owner, customizeTypeName(names.customization, functionArgsTypeName(r.function.name)));
      if (clash !== null) {
        bad.push(sourceInconsistency(naming, ref, definition, `in table "${naming.format(entry.table)}": computed field "${cf.name}": ${clash}`));
        continue;
      }
    }
    out.push(r);
  }
  return { output: out, inconsistencies: bad };
}

/** Per source, the consistent computed fields of each table (by `schema.name`) that has computed field entries. */
export type ComputedFieldsBySource = ReadonlyMap<ResolvedSource, ReadonlyMap<string, readonly ComputedFieldInfo[]>>;

/**
 * Resolves the computed fields of every tracked table. After relationships,
 * whose names they must not take; before permissions, which name them.
 */
export function resolveComputedFields(
  tablesBySource: TablesBySource,
  relationships: RelationshipsBySource,
  names: NameRegistry,
): StageResult<ComputedFieldsBySource> {
  const bad: InconsistentObject[] = [];
  const out = new Map<ResolvedSource, Map<string, readonly ComputedFieldInfo[]>>();
  for (const [s, { tables }] of tablesBySource) {
    const bySource = new Map<string, readonly ComputedFieldInfo[]>();
    const isTracked = (n: { schema: string; name: string }): boolean => tables.has(tableKey(n));
    for (const entry of s.meta.tables) {
      if (entry.computed_fields.length === 0) continue;
      const key = tableKey(entry.table);
      const rels = new Set(relationships.get(s)?.get(key)?.keys() ?? []);
      const fns = s.prepared.introspection.functions;
      const r = resolveTableComputedFields(
        s.meta.name,
        s.backend.naming,
        entry,
        tables.get(key),
        rels,
        fns,
        isTracked,
        {
          registry: names,
          customization: s.customization,
        },
        s.backend.computedFieldInputs,
      );
      bad.push(...r.inconsistencies);
      bySource.set(key, r.output);
    }
    out.set(s, bySource);
  }
  return { output: out, inconsistencies: bad };
}

/**
 * A select permission's `computed_fields` resolved against the table's
 * consistent computed fields: the names, or why the permission is
 * inconsistent (a listed computed field is missing or inconsistent).
 */
export function permittedComputedFields(
  permission: Readonly<Record<string, unknown>>,
  computed: readonly ComputedFieldInfo[],
): { names: string[] } | { reason: string } {
  const listed = permission['computed_fields'];
  if (!Array.isArray(listed)) return { names: [] };
  const names: string[] = [];
  for (const n of listed) {
    if (typeof n !== 'string' || !computed.some((c) => c.name === n)) {
      return { reason: `computed field "${String(n)}" does not exist` };
    }
    names.push(n);
  }
  return { names };
}

/**
 * A scalar computed field usable without arguments, seen as a nullable
 * column named after the field: how permission filters and their checks
 * treat `{<computed field>: {_eq: ...}}`. Null when `name` is no such field.
 */
export function scalarComputedColumn(
  computed: readonly ComputedFieldInfo[] | undefined,
  name: string,
): { readonly column: ColumnInfo; readonly field: ComputedFieldInfo } | null {
  const cf = computed?.find((c) => c.name === name);
  if (cf === undefined || !cf.args.every((a) => a.hasDefault)) return null;
  const column = computedFieldAsColumn(cf);
  return column === null ? null : { column, field: cf };
}

/** A scalar computed field seen as a nullable, read-only column (null for table-returning ones). */
export function computedFieldAsColumn(cf: ComputedFieldInfo): ColumnInfo | null {
  if (cf.returns.kind !== 'scalar') return null;
  return {
    name: cf.name,
    gqlName: cf.name,
    dbType: cf.returns.dbType,
    elementType: cf.returns.elementType,
    typeCategory: cf.returns.typeCategory,
    enumLabels: null,
    nullable: true,
    hasDefault: false,
    isGenerated: true,
    description: cf.description,
    enumTable: null,
  };
}
