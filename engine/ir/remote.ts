/**
 * Root fields of a remote schema, as planned from a client's selection
 * (graphql/to-ir/remote.ts): the remote query text is made once, at plan
 * time, in the remote's own names, so a plan-cache hit only binds variables
 * and sends it (Note [Remote root fields] in graphql/to-ir/remote.ts).
 */
import type { DbRootField } from './root.ts';
import type { ParamSource } from './value.ts';

/** Where `__typename` values sit in a result, by response key, to be renamed back to customized names. */
export interface TypenameTree {
  /** Response keys at this level that hold a `__typename`. */
  readonly typenames: readonly string[];
  readonly children: ReadonlyMap<string, TypenameTree>;
}

/** A session variable sent as a GraphQL variable of the remote query (a `@preset` naming one). */
export interface SessionPreset {
  /** The variable of the remote query. */
  readonly variable: string;
  /** The session variable (lower case). */
  readonly session: string;
  /** How the string becomes the argument's value. */
  readonly coerce: 'string' | 'int' | 'float' | 'boolean';
}

/** One root field of a remote schema in a remote query. */
export interface RemoteFieldPart {
  /** The field as the remote reads it, without alias: `name(args) { selection }` in the remote's names. */
  readonly text: string;
  /** The client's variables the text uses, with their types in the remote's names. */
  readonly variables: ReadonlyArray<readonly [name: string, type: string]>;
  readonly sessionPresets: readonly SessionPreset[];
  /** `__typename`s to rename in the field's value (null: none, or no type is renamed). */
  readonly typenames: TypenameTree | null;
}

/** A root field answered by a remote schema (possibly under its `root_fields_namespace`). */
export type RemoteRootField =
  | {
      readonly kind: 'remote';
      readonly alias: string;
      readonly remote: string;
      readonly operation: 'query' | 'mutation' | 'subscription';
      readonly part: RemoteFieldPart;
    }
  | {
      readonly kind: 'remote-namespace';
      readonly alias: string;
      readonly remote: string;
      readonly operation: 'query' | 'mutation' | 'subscription';
      /** The namespace's members in selection order: remote fields, or a static JSON value (`__typename`). */
      readonly members: ReadonlyArray<{ readonly alias: string; readonly part: RemoteFieldPart } | { readonly alias: string; readonly json: string }>;
    };

/** How a join value becomes an argument literal of the remote field. */
export type JoinValueKind = 'string' | 'int' | 'float' | 'boolean' | 'enum' | 'raw';

/** The type a table join's key values compare as: integers of a width, numbers, booleans, JSON values, UUIDs, or text. */
export type JoinKeyType = 'int16' | 'int32' | 'int64' | 'number' | 'boolean' | 'json' | 'uuid' | 'text';

/**
 * GraphQL text standing for a value inside a join's argument template: a
 * preset of the role's view written at plan time (a literal, or the
 * `$variable` a session preset is bound to), kept as it is when the join
 * keys are substituted (Note [Remote joins in a role's view] in
 * remote/role-join.ts).
 */
export class RemoteLiteral {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** One field of a remote relationship's `remote_field` path, with its argument template. */
export interface RemoteJoinStep {
  /** The field's name in the remote schema. */
  readonly field: string;
  /** Arguments as JSON; a string `$column` stands for that join column's value, a RemoteLiteral for a preset. */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** How each top-level argument's value is written. */
  readonly kinds: Readonly<Record<string, JoinValueKind>>;
}

/**
 * A remote relationship selected somewhere in a read: the rows at `path`
 * (response keys from the root field down; lists are walked through) carry
 * their join columns under hidden keys, and `alias` is filled with the remote
 * field's value for them, one remote request for every row of the request
 * (Note [Remote joins] in execute/remote-join.ts).
 */
export interface RemoteJoin {
  readonly kind: 'remote';
  readonly path: readonly string[];
  readonly alias: string;
  readonly remote: string;
  /** Join columns and the hidden response keys holding their values. */
  readonly columns: ReadonlyArray<readonly [column: string, key: string]>;
  readonly steps: readonly RemoteJoinStep[];
  /** The selection on the joined field's type (` { ... }`, or empty for a scalar), in the remote's names. */
  readonly selection: RemoteFieldPart;
  /** Joins on the joined field's values, their paths from the value down. */
  readonly nested: readonly Join[];
}

/**
 * A relationship to a table (`to_source`) of a remote type or of a table
 * of another source, selected somewhere in a result: the objects at `path` carry their join fields under
 * hidden keys, and `alias` is filled with the table's rows whose columns
 * match them. `read` selects the rows of every object of the response
 * level at once, filtered by `column IN (keys)` with the keys bound as the
 * variables `keyVariables`, the caller's select permission folded in; rows
 * come back with their key columns as `keyAliases` to be matched (Note
 * [Remote joins] in execute/remote-join.ts).
 */
export interface TableJoin {
  readonly kind: 'table';
  readonly path: readonly string[];
  readonly alias: string;
  readonly type: 'object' | 'array';
  readonly source: string;
  /** Hidden key of each join field in the parent objects, and the column it matches. */
  readonly columns: ReadonlyArray<readonly [key: string, column: string]>;
  /** How each key compares: as a value of its column's type (Note [Join keys by type] in execute/join-keys.ts). */
  readonly keyTypes: readonly JoinKeyType[];
  readonly keyVariables: readonly string[];
  readonly keyAliases: readonly string[];
  /** A select of the table without limit and offset (its alias is unique in the operation). */
  readonly read: DbRootField;
  /** An array relationship's `limit`, `offset` and permission limit, applied per parent object. */
  readonly limit: ParamSource | null;
  readonly offset: ParamSource | null;
  readonly limitCap: number | null;
  /** Joins in the rows (remote relationships of the table), their paths from a row down. */
  readonly nested: readonly Join[];
}

/** Work on a result after it arrives: a join to a remote schema's field or to a table. */
export type Join = RemoteJoin | TableJoin;

/** The hidden response key holding join column `column` in a row. */
export function joinColumnKey(column: string): string {
  return `__engine_join_${column}`;
}
