/**
 * Stage "functions": a tracked function entry + its introspected database
 * function → {@link FunctionInfo}, or why it is inconsistent. A function must
 * exist once (no overloads) and return rows (SETOF or one) of a consistent
 * tracked table; its input arguments become the GraphQL `args` object.
 */
import type { ScalarInfo, TableNaming } from '../../backends/backend.ts';
import type { IntrospectedFunction, IntrospectedFunctionArg } from '../../backends/introspection.ts';
import type { CustomRootField, FunctionMetadata } from '../../model/document.ts';
import { sourceInconsistency } from '../inconsistency.ts';
import { functionArgsTypeName } from '../graphql-names.ts';
import {
  tableKey,
  type FunctionArgInfo,
  type FunctionInfo,
  type InconsistentObject,
  type QualifiedName,
  type SourceCustomizationInfo,
  type SourceInfo,
  type TableInfo,
} from '../types.ts';
import { customizeRootFields, customizeTypeName } from './customization.ts';
import { inheritFunctionPermissions, type InheritedRolePlan } from './inherited-roles.ts';
import type { NameRegistry } from './names.ts';
import type { ResolvedSource } from './sources.ts';
import type { StageResult } from './stage.ts';
import { isSchemaName } from './tables.ts';

function rootFieldName(f: CustomRootField | null | undefined): string | null {
  if (f === null || f === undefined) return null;
  if (typeof f === 'string') return f;
  return f.name ?? null;
}

/**
 * The one database function named by a tracked function or computed field,
 * or why there is none usable.
 */
export function singleFunction(
  name: QualifiedName,
  found: readonly IntrospectedFunction[] | undefined,
  naming: TableNaming,
): IntrospectedFunction | { reason: string } {
  const text = `"${naming.format(name)}"`;
  const fn = found?.[0];
  if (found === undefined || fn === undefined) return { reason: `no such function exists in postgres : ${text}` };
  if (found.length > 1) return { reason: `function ${text} is overloaded. Overloaded functions are not supported` };
  return fn;
}

/** Checks a session argument: it must exist and be of a JSON type (json/jsonb). */
export function checkSessionArgument(
  fnText: string,
  args: readonly IntrospectedFunctionArg[],
  session: string | null,
  scalar: (dbType: string) => ScalarInfo,
): { reason: string } | null {
  if (session === null) return null;
  const arg = args.find((a) => a.name === session);
  if (arg === undefined) return { reason: `${fnText}: session argument "${session}" not found` };
  if (!scalar(arg.dbType).json) return { reason: `${fnText}: session argument "${session}" should be of type json or jsonb` };
  return null;
}

/**
 * The GraphQL arguments of a function: its input arguments minus `skip`
 * (session and table arguments by name) and the argument at `skipIndex` (a
 * computed field's row, passed first). Each must be a GraphQL name.
 *
 * Note [Unnamed function arguments]
 * v2 compat: an argument without a name is exposed as `arg_<n>`, n its
 * position (from 1), and passed by position. PostgreSQL takes positional
 * arguments before named ones and fills parameters from the first, so every
 * argument up to the last unnamed one is passed by position (`positional`),
 * the rest by name; an argument the engine fills itself (the session
 * argument, or a row argument not in first place) may not sit in that
 * prefix. At a call, a positional argument left out ends the positional
 * list: a later positional argument cannot be given without it
 * (graphql/to-ir/function.ts).
 */
export function graphqlArguments(
  fnText: string,
  args: readonly IntrospectedFunctionArg[],
  skip: ReadonlySet<string>,
  skipIndex = -1,
): FunctionArgInfo[] | { reason: string } {
  let lastUnnamed = -1;
  for (const [i, a] of args.entries()) if (a.name === null && i !== skipIndex) lastUnnamed = i;
  if (skipIndex > 0 && skipIndex < lastUnnamed) {
    return { reason: `${fnText}: the table argument must come first when an argument after it has no name` };
  }
  const out: FunctionArgInfo[] = [];
  for (const [i, a] of args.entries()) {
    if (i === skipIndex) continue;
    if (a.name !== null && skip.has(a.name)) {
      if (i < lastUnnamed) return { reason: `${fnText}: the argument "${a.name}" comes before an unnamed argument, which is passed by position` };
      continue;
    }
    const name = a.name ?? `arg_${i + 1}`;
    if (!isSchemaName(name)) return { reason: `${fnText}: the argument name "${name}" is not a valid GraphQL name` };
    out.push({
      name,
      dbType: a.dbType,
      elementType: a.elementType,
      typeCategory: a.typeCategory,
      hasDefault: a.hasDefault,
      ...(i <= lastUnnamed ? { positional: true } : {}),
    });
  }
  return out;
}

/** Resolves one tracked function; `isTracked` says whether a table is tracked and consistent. */
export function resolveFunction(
  source: string,
  entry: FunctionMetadata,
  found: readonly IntrospectedFunction[] | undefined,
  isTracked: (t: QualifiedName) => boolean,
  scalar: (dbType: string) => ScalarInfo,
  naming: TableNaming,
): FunctionInfo | { reason: string } {
  const fn = singleFunction(entry.function, found, naming);
  if ('reason' in fn) return fn;
  const text = `the function "${naming.format(entry.function)}"`;
  if (fn.returnTable === null) {
    return { reason: `${text} cannot be tracked because the function does not return a "COMPOSITE" type` };
  }
  if (!isTracked(fn.returnTable)) {
    return { reason: `${text} cannot be tracked because its return table "${naming.format(fn.returnTable)}" is not tracked` };
  }
  const config = entry.configuration ?? {};
  const session = config.session_argument ?? null;
  const bad = checkSessionArgument(text, fn.args, session, scalar);
  if (bad !== null) return bad;
  const args = graphqlArguments(text, fn.args, new Set(session === null ? [] : [session]));
  if ('reason' in args) return args;
  const custom = config.custom_name;
  const gqlName = custom !== null && custom !== undefined && custom !== '' ? custom : naming.graphqlName(entry.function);
  const roots = config.custom_root_fields ?? {};
  const rootFields = {
    function: rootFieldName(roots.function) ?? gqlName,
    functionAggregate: rootFieldName(roots.function_aggregate) ?? `${gqlName}_aggregate`,
  };
  for (const n of [gqlName, rootFields.function, rootFields.functionAggregate]) {
    if (!isSchemaName(n)) return { reason: `${text}: "${n}" is not a valid GraphQL name; set a custom_name for it` };
  }
  const exposed = config.exposed_as ?? (fn.volatility === 'volatile' ? 'mutation' : 'query');
  return {
    source,
    name: entry.function,
    gqlName,
    rootFields,
    description: entry.comment ?? fn.comment,
    returnTable: fn.returnTable,
    returnsSet: fn.returnsSet,
    exposedAs: exposed,
    args,
    sessionArgument: session,
    permissions: (entry.permissions ?? []).map((p) => p.role),
  };
}

/** What {@link resolveSourceFunctions} reads of the rest of the build. */
export interface FunctionStageInput {
  readonly source: string;
  readonly entries: readonly FunctionMetadata[];
  readonly introspected: ReadonlyMap<string, readonly IntrospectedFunction[]> | undefined;
  /** The source's consistent tables (with permissions resolved). */
  readonly tables: ReadonlyMap<string, TableInfo>;
  readonly names: NameRegistry;
  readonly customization?: SourceCustomizationInfo;
  /** The source's backend's description of a database type. */
  readonly scalar: (dbType: string) => ScalarInfo;
  /** The source's backend's naming of tables and functions. */
  readonly naming: TableNaming;
}

/**
 * Resolves every tracked function of a source. A function permission whose
 * role may not select from the return table is inconsistent on its own; the
 * function stays.
 */
export function resolveSourceFunctions(input: FunctionStageInput): StageResult<Map<string, FunctionInfo>> {
  const bad: InconsistentObject[] = [];
  const out = new Map<string, FunctionInfo>();
  for (const entry of input.entries) {
    const ref = { kind: 'function', source: input.source, function: entry.function } as const;
    const definition = { function: entry.function, configuration: entry.configuration ?? {}, source: input.source };
    const resolved = resolveFunction(
      input.source,
      entry,
      input.introspected?.get(tableKey(entry.function)),
      (t) => input.tables.has(tableKey(t)),
      input.scalar,
      input.naming,
    );
    if ('reason' in resolved) {
      bad.push(sourceInconsistency(input.naming, ref, definition, resolved.reason));
      continue;
    }
    const r = { ...resolved, rootFields: customizeRootFields(input.customization, resolved.rootFields) };
    const owner = `function "${input.naming.format(entry.function)}" in source "${input.source}"`;
    const clash = input.names.claimNames(
      owner,
      [
        [r.rootFields.function, 'root field'],
        [r.rootFields.functionAggregate, 'root field'],
        [customizeTypeName(input.customization, functionArgsTypeName(r.gqlName)), 'type name'],
      ],
      r.gqlName,
      input.customization?.namespace ?? '',
    );
    if (clash !== null) {
      bad.push(sourceInconsistency(input.naming, ref, definition, clash));
      continue;
    }
    const table = input.tables.get(tableKey(r.returnTable));
    const permitted = r.permissions.filter((role) => {
      if (table?.permissions.get(role)?.select != null) return true;
      const pref = { kind: 'function_permission', source: input.source, function: entry.function, role } as const;
      const reason = `permission denied: role "${role}" does not have select permission on the return table "${input.naming.format(r.returnTable)}" of function "${input.naming.format(entry.function)}"`;
      bad.push(sourceInconsistency(input.naming, pref, { function: entry.function, role, source: input.source }, reason));
      return false;
    });
    out.set(tableKey(entry.function), { ...r, permissions: permitted });
  }
  return { output: out, inconsistencies: bad };
}

/**
 * Stage "functions" over every source: `sources` (the assembled catalog
 * sources) with their tracked functions added. After permissions: a function
 * permission needs the role's select permission on the return table, and
 * inherited roles get the functions of their parents. Claims `<fn>_args` and
 * the root fields in `names`, after the tables and computed fields.
 */
export function resolveFunctions(
  resolved: readonly ResolvedSource[],
  sources: ReadonlyMap<string, SourceInfo>,
  names: NameRegistry,
  roles: InheritedRolePlan,
): StageResult<Map<string, SourceInfo>> {
  const bad: InconsistentObject[] = [];
  const out = new Map(sources);
  for (const s of resolved) {
    const info = out.get(s.meta.name);
    if (info === undefined || s.meta.functions.length === 0) continue;
    const r = resolveSourceFunctions({
      source: s.meta.name,
      entries: s.meta.functions,
      introspected: s.prepared.introspection.functions,
      tables: info.tables,
      names,
      customization: s.customization,
      scalar: (t) => s.backend.scalar(t),
      naming: s.backend.naming,
    });
    bad.push(...r.inconsistencies);
    const functions = new Map([...r.output].map(([k, f]) => [k, { ...f, permissions: inheritFunctionPermissions(roles, f.permissions) }]));
    out.set(s.meta.name, { ...info, functions });
  }
  return { output: out, inconsistencies: bad };
}
