/**
 * Descriptors stored in the `extensions` of generated fields, so turning an
 * operation into IR needs no lookups by name: the field definition graphql-js
 * hands back carries what it means. The views they hold describe shape only:
 * the schema may be shared by several roles, so to-ir reads permissions from
 * the requesting role's own views (Note [Shared role types] in role-access.ts).
 */
import type { ColumnInfo, ComputedFieldInfo, FunctionInfo } from '../../catalog/types.ts';
import { nullProto } from './lean-types.ts';
import type { RemoteSchemaInfo, RemoteTypeRelationship, RemoteView } from '../../remote/types.ts';
import type { RemoteRelationshipInfo } from '../../remote/relationship.ts';
import type { RoleJoin } from '../../remote/role-join.ts';
import type { AggregateOpName } from './names.ts';
import type { RelationshipView, SourceRelationshipView, TableView } from './table-view.ts';

/** The `extensions` key holding a descriptor. */
export const DESCRIPTOR = 'engine';

/** A query/subscription root field. */
export type RootFieldDescriptor =
  | { readonly kind: 'select'; readonly table: TableView }
  | { readonly kind: 'select-by-pk'; readonly table: TableView }
  | { readonly kind: 'select-aggregate'; readonly table: TableView }
  /** `<t>_stream` on subscription_root (stream-fields.ts). */
  | { readonly kind: 'select-stream'; readonly table: TableView }
  | { readonly kind: 'static'; readonly json: string }
  /** A tracked function's rows (`<fn>`) or their aggregate (`<fn>_aggregate`); see function-fields.ts. */
  | { readonly kind: 'function' | 'function-aggregate'; readonly table: TableView; readonly fn: FunctionInfo }
  /** Relay: `<fn>_connection` of a function returning rows of a table with a primary key (relay-types.ts). */
  | { readonly kind: 'function-connection'; readonly table: TableView; readonly fn: FunctionInfo }
  /** The namespace field of a source with `root_fields.namespace`; see namespace.ts. */
  | { readonly kind: 'namespace'; readonly source: string }
  /** A root field of a remote schema, or its `root_fields_namespace` field; see remote-root-fields.ts. */
  | {
      readonly kind: 'remote' | 'remote-namespace';
      readonly remote: RemoteSchemaInfo;
      readonly view: RemoteView;
      readonly operation: 'query' | 'mutation' | 'subscription';
    }
  /** Relay: `<t>_connection` (relay-types.ts). */
  | { readonly kind: 'select-connection'; readonly table: TableView }
  /** Relay: `node(id:)`. */
  | { readonly kind: 'node' };

/** A field of a table's object type, or of a bool_exp / order_by input. */
export type TableFieldDescriptor =
  | { readonly kind: 'column'; readonly column: ColumnInfo }
  | { readonly kind: 'object-relationship'; readonly rel: RelationshipView }
  | { readonly kind: 'array-relationship'; readonly rel: RelationshipView }
  | { readonly kind: 'array-aggregate'; readonly rel: RelationshipView }
  /** A scalar computed field (object field, bool_exp field, order_by field); see computed-field-fields.ts. */
  | { readonly kind: 'computed-scalar'; readonly cf: ComputedFieldInfo }
  /** A table-returning computed field: rows of `target`. */
  | { readonly kind: 'computed-rows'; readonly cf: ComputedFieldInfo; readonly target: TableView }
  /** `<cf>_aggregate` of `<t>_order_by`: an aggregate of a table-returning computed field's rows. */
  | { readonly kind: 'computed-aggregate'; readonly cf: ComputedFieldInfo; readonly target: TableView }
  | { readonly kind: 'and' | 'or' | 'not' }
  /** A remote relationship to a remote schema's field, as the role's view of the remote admits it; see table-types.ts. */
  | { readonly kind: 'remote-relationship'; readonly rr: RemoteRelationshipInfo; readonly join: RoleJoin }
  /** A `to_source` relationship to a table of another source; see table-types.ts. */
  | { readonly kind: 'source-relationship'; readonly rel: SourceRelationshipView }
  /** Relay: a row's `id` (its node id, from the primary key). */
  | { readonly kind: 'node-id' }
  /** Relay: `<rel>_connection` of an array relationship. */
  | { readonly kind: 'array-connection'; readonly rel: RelationshipView };

/**
 * A relationship field of a remote schema's type (remote-types.ts): to a
 * table (`target`: the view whose types it shows) or to another remote's
 * field (`targetRemote`).
 */
export interface RemoteTypeFieldDescriptor {
  readonly kind: 'remote-type-relationship';
  readonly rel: RemoteTypeRelationship;
  readonly target?: TableView;
  /** The remote schema a `to_remote_schema` relationship leads to. */
  readonly targetRemote?: RemoteSchemaInfo;
  /** Its joined field as the role's view of that remote admits it (Note [Remote joins in a role's view] in remote/role-join.ts). */
  readonly targetJoin?: RoleJoin;
}

/** A field of `<t>_aggregate_fields` or `<t>_aggregate_order_by` (or `<t>_aggregate_bool_exp`: count, bool_and, bool_or). */
export type AggregateFieldDescriptor =
  { readonly kind: 'count' } | { readonly kind: 'op'; readonly op: AggregateOpName } | { readonly kind: 'bool'; readonly fn: BoolAggregate };

/** v2's boolean aggregates of `<t>_aggregate_bool_exp`. */
export const BOOL_AGGREGATES = ['bool_and', 'bool_or'] as const;
export type BoolAggregate = (typeof BOOL_AGGREGATES)[number];

const BOOL_EXTENSIONS = {
  bool_and: withDescriptor<AggregateFieldDescriptor>({ kind: 'bool', fn: 'bool_and' }),
  bool_or: withDescriptor<AggregateFieldDescriptor>({ kind: 'bool', fn: 'bool_or' }),
} as const;

/** The extensions of `bool_and` / `bool_or` in `<t>_aggregate_bool_exp`. */
export function boolAggregateExtensions(fn: BoolAggregate): Extensions<AggregateFieldDescriptor> {
  return BOOL_EXTENSIONS[fn];
}

/** `extensions` holding a descriptor of type `T`. */
export type Extensions<T> = { readonly [DESCRIPTOR]: T };

/** `{engine: d}` for a field's `extensions`: a fast null-prototype object, see Note [Lean extensions] in lean-types.ts. */
export function withDescriptor<T>(d: T): Extensions<T> {
  // A literal key (DESCRIPTOR): V8 gives a computed-key literal spare property slots.
  return nullProto({ engine: d });
}

type ColumnDescriptor = { readonly kind: 'column'; readonly column: ColumnInfo };
const byColumn = new WeakMap<ColumnInfo, Extensions<ColumnDescriptor>>();

/**
 * The extensions of a field standing for `column` (object, bool_exp,
 * order_by, aggregate and insert fields), one object per column.
 */
export function columnExtensions(column: ColumnInfo): Extensions<ColumnDescriptor> {
  let e = byColumn.get(column);
  if (e === undefined) {
    e = withDescriptor<ColumnDescriptor>({ kind: 'column', column });
    byColumn.set(column, e);
  }
  return e;
}

type RelationshipKind = 'object-relationship' | 'array-relationship' | 'array-aggregate' | 'array-connection';
type RelationshipDescriptor = { readonly kind: RelationshipKind; readonly rel: RelationshipView };
const byRelationship = new WeakMap<RelationshipView, Partial<Record<RelationshipKind, Extensions<RelationshipDescriptor>>>>();

/** The extensions of a field following `rel` as `kind`, one object per relationship view and kind. */
export function relationshipExtensions(rel: RelationshipView, kind: RelationshipKind): Extensions<RelationshipDescriptor> {
  let m = byRelationship.get(rel);
  if (m === undefined) {
    m = {};
    byRelationship.set(rel, m);
  }
  let e = m[kind];
  if (e === undefined) {
    e = withDescriptor<RelationshipDescriptor>({ kind, rel });
    m[kind] = e;
  }
  return e;
}

/** The extensions of the `_and`, `_or` and `_not` fields of every bool_exp. */
export const COMBINATOR_EXTENSIONS = {
  _and: withDescriptor<TableFieldDescriptor>({ kind: 'and' }),
  _or: withDescriptor<TableFieldDescriptor>({ kind: 'or' }),
  _not: withDescriptor<TableFieldDescriptor>({ kind: 'not' }),
} as const;

/** The extensions of `count` fields of aggregates. */
export const COUNT_EXTENSIONS = withDescriptor<AggregateFieldDescriptor>({ kind: 'count' });

const byOp = new Map<AggregateOpName, Extensions<AggregateFieldDescriptor>>();

/** The extensions of the `<op>` fields of aggregates, one object per operator. */
export function aggregateOpExtensions(op: AggregateOpName): Extensions<AggregateFieldDescriptor> {
  let e = byOp.get(op);
  if (e === undefined) {
    e = withDescriptor<AggregateFieldDescriptor>({ kind: 'op', op });
    byOp.set(op, e);
  }
  return e;
}

/**
 * The descriptor in `extensions`, or undefined. The caller names the type it
 * expects from the kind of schema element it is reading (the builder put
 * exactly that type there).
 */
export function descriptorOf<T>(extensions: Readonly<Record<string, unknown>> | null | undefined): T | undefined {
  return (extensions?.[DESCRIPTOR] ?? undefined) as T | undefined;
}
