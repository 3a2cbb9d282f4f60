/**
 * Actions and custom types as the catalog holds them (resolved from the
 * document by resolve.ts), and GraphQL type references (`[String!]!`).
 */
import type { CompiledRequestTransform, CompiledResponseTransform } from '../transforms/index.ts';
import type { QualifiedName } from '../ir/table.ts';

/** A GraphQL type reference: a named type, or a list, either possibly non-null. */
export type TypeRef =
  { readonly kind: 'named'; readonly name: string; readonly nonNull: boolean } | { readonly kind: 'list'; readonly of: TypeRef; readonly nonNull: boolean };

/** Parses `[Int!]!`-style type text; null when it is not a type reference. */
export function parseTypeRef(text: string): TypeRef | null {
  const s = text.trim();
  let nonNull = false;
  let body = s;
  if (body.endsWith('!')) {
    nonNull = true;
    body = body.slice(0, -1).trimEnd();
  }
  if (body.startsWith('[') && body.endsWith(']')) {
    const of = parseTypeRef(body.slice(1, -1));
    return of === null ? null : { kind: 'list', of, nonNull };
  }
  return /^[_A-Za-z][_0-9A-Za-z]*$/.test(body) ? { kind: 'named', name: body, nonNull } : null;
}

/** The type text of a reference. */
export function printTypeRef(t: TypeRef): string {
  const inner = t.kind === 'named' ? t.name : `[${printTypeRef(t.of)}]`;
  return t.nonNull ? `${inner}!` : inner;
}

/** The named type under lists and non-null. */
export function baseName(t: TypeRef): string {
  return t.kind === 'named' ? t.name : baseName(t.of);
}

export interface CustomField {
  readonly name: string;
  readonly type: TypeRef;
  readonly description: string | null;
}

export interface CustomScalar {
  readonly name: string;
  readonly description: string | null;
}

export interface CustomEnum {
  readonly name: string;
  readonly description: string | null;
  readonly values: ReadonlyArray<{ readonly value: string; readonly description: string | null; readonly isDeprecated: boolean }>;
}

export interface CustomInputObject {
  readonly name: string;
  readonly description: string | null;
  readonly fields: readonly CustomField[];
}

/** A relationship of an output object to a tracked table (v2 custom-type relationships). */
export interface CustomRelationship {
  readonly name: string;
  readonly type: 'object' | 'array';
  readonly source: string;
  readonly table: QualifiedName;
  /** Object field → table column. */
  readonly fieldMapping: ReadonlyArray<readonly [string, string]>;
}

export interface CustomObject {
  readonly name: string;
  readonly description: string | null;
  readonly fields: readonly CustomField[];
  readonly relationships: readonly CustomRelationship[];
}

/** Every custom type, by name. */
export interface CustomTypesInfo {
  readonly scalars: ReadonlyMap<string, CustomScalar>;
  readonly enums: ReadonlyMap<string, CustomEnum>;
  readonly inputObjects: ReadonlyMap<string, CustomInputObject>;
  readonly objects: ReadonlyMap<string, CustomObject>;
}

/** A header sent to a handler: a value, or one read from the environment when the action is resolved. */
export interface ActionHeader {
  readonly name: string;
  readonly value: string;
}

/** A consistent action. */
export interface ActionInfo {
  readonly name: string;
  readonly kind: 'synchronous' | 'asynchronous';
  readonly type: 'query' | 'mutation';
  readonly description: string | null;
  readonly arguments: readonly CustomField[];
  readonly outputType: TypeRef;
  /** The handler URL, `{{ENV}}` resolved. */
  readonly handler: string;
  readonly headers: readonly ActionHeader[];
  readonly forwardClientHeaders: boolean;
  readonly timeoutMs: number;
  readonly requestTransform: CompiledRequestTransform | null;
  readonly responseTransform: CompiledResponseTransform | null;
  /** Roles with an action permission (inherited roles included); admin is always allowed. */
  readonly roles: ReadonlySet<string>;
}

/** The actions part of a catalog. */
export interface ActionsCatalog {
  readonly customTypes: CustomTypesInfo;
  readonly actions: ReadonlyMap<string, ActionInfo>;
}

/** v2's default action timeout: 30 seconds. */
export const DEFAULT_ACTION_TIMEOUT_SECONDS = 30;

/** GraphQL's built-in scalars. */
export const BUILTIN_SCALARS: ReadonlySet<string> = new Set(['Int', 'Float', 'String', 'Boolean', 'ID']);
