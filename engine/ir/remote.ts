/**
 * Root fields of a remote schema, as planned from a client's selection
 * (graphql/to-ir/remote.ts): the remote query text is made once, at plan
 * time, in the remote's own names, so a plan-cache hit only binds variables
 * and sends it (Note [Remote root fields] in graphql/to-ir/remote.ts).
 */

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
      readonly operation: 'query' | 'mutation';
      readonly part: RemoteFieldPart;
    }
  | {
      readonly kind: 'remote-namespace';
      readonly alias: string;
      readonly remote: string;
      readonly operation: 'query' | 'mutation';
      /** The namespace's members in selection order: remote fields, or a static JSON value (`__typename`). */
      readonly members: ReadonlyArray<{ readonly alias: string; readonly part: RemoteFieldPart } | { readonly alias: string; readonly json: string }>;
    };
